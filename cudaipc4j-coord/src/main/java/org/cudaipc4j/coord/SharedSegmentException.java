package org.cudaipc4j.coord;

/** A {@link SharedSegment} could not be created, opened, sized or removed; the message names the file. */
public class SharedSegmentException extends CoordinationException {
    public SharedSegmentException(String message) {
        super(message);
    }

    public SharedSegmentException(String message, Throwable cause) {
        super(message, cause);
    }
}
