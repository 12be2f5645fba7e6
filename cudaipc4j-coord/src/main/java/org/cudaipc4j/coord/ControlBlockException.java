package org.cudaipc4j.coord;

/**
 * A shared segment is not a valid {@link ControlBlock} for this process (bad magic, wrong layout version, wrong
 * size, foreign owner, not created by our parent); each case has its own message.
 */
public class ControlBlockException extends CoordinationException {
    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public ControlBlockException(String message) {
        super(message);
    }

    /**
     * An exception with {@code message} and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause the failure beneath it
     */
    public ControlBlockException(String message, Throwable cause) {
        super(message, cause);
    }
}
