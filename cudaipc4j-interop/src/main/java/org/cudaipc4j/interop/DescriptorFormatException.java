package org.cudaipc4j.interop;

/**
 * A descriptor that cannot be read: malformed, missing a field, or of a newer major format. One line. One of the
 * library's {@link InteropException}s.
 */
public class DescriptorFormatException extends InteropException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with {@code message}.
     *
     * @param message what is wrong, in one line naming the field
     */
    public DescriptorFormatException(String message) {
        super(message);
    }
}
