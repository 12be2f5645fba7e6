package org.cudaipc4j.coord;

/** A multi-process coordination step failed: the message says what failed and which process, in one line. */
public class CoordinationException extends RuntimeException {
    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public CoordinationException(String message) {
        super(message);
    }

    /**
     * An exception with {@code message} and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause the failure beneath it
     */
    public CoordinationException(String message, Throwable cause) {
        super(message, cause);
    }
}
