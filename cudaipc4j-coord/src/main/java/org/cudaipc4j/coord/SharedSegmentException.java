package org.cudaipc4j.coord;

/** A {@link SharedSegment} could not be created, opened, sized or removed; the message names the file. */
public class SharedSegmentException extends CoordinationException {
    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public SharedSegmentException(String message) {
        super(message);
    }

    /**
     * An exception with {@code message} and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause the failure beneath it
     */
    public SharedSegmentException(String message, Throwable cause) {
        super(message, cause);
    }
}
