package org.cudaipc4j.launch;

import java.io.Serial;

/**
 * A launcher's environment variable with a value that cannot be used, or a value that is needed and missing. The
 * message is one line that names the variable, its value and what was expected.
 */
public final class LaunchEnvironmentException extends LaunchException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The variable the message is about. */
    private final String variable;

    /**
     * An error about {@code variable}.
     *
     * @param variable the environment variable at fault, or the one to set
     * @param message one line naming the variable, its value and what was expected
     */
    public LaunchEnvironmentException(String variable, String message) {
        super(message);
        this.variable = variable;
    }

    /** {@return the environment variable at fault, or the one to set to get past this error} */
    public String variable() {
        return variable;
    }
}
