package org.cudaipc4j.interop;

/** A descriptor that cannot be read: malformed, missing a field, or of a newer major format. One line. */
public class DescriptorFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public DescriptorFormatException(String message) {
        super(message);
    }
}
