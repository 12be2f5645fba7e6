package org.cudaipc4j.coord;

/**
 * A shared segment is not a valid {@link ControlBlock} for this process (bad magic, wrong layout version, wrong
 * size, foreign owner, not created by our parent); each case has its own message.
 */
public class ControlBlockException extends CoordinationException {
    public ControlBlockException(String message) {
        super(message);
    }

    public ControlBlockException(String message, Throwable cause) {
        super(message, cause);
    }
}
