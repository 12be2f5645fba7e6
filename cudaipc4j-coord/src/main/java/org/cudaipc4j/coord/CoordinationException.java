package org.cudaipc4j.coord;

/** A multi-process coordination step failed: the message says what failed and which process, in one line. */
public class CoordinationException extends RuntimeException {
    public CoordinationException(String message) {
        super(message);
    }

    public CoordinationException(String message, Throwable cause) {
        super(message, cause);
    }
}
