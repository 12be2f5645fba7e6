package org.cudaipc4j.launch;

import java.io.Serial;

/**
 * The root of what the launch library throws: catch it for any failure of a launch. Beneath it, a launcher's
 * variable that cannot be used ({@link LaunchEnvironmentException}) and a rendezvous or a barrier that did not
 * complete ({@link RendezvousException}). The message is one line.
 */
public class LaunchException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public LaunchException(String message) {
        super(message);
    }

    /**
     * An exception with {@code message} and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause the failure beneath it, or null
     */
    public LaunchException(String message, Throwable cause) {
        super(message, cause);
    }
}
