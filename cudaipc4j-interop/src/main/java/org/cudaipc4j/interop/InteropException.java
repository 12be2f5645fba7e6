package org.cudaipc4j.interop;

/**
 * What this library refuses or cannot do with what another process shared (a torch share it cannot honour, a
 * descriptor it cannot open here); the message says why and what the user can change, in one line. The root of what
 * the library throws: beneath it, a descriptor that cannot even be read ({@link DescriptorFormatException}), one
 * refused before the driver is touched ({@code OpenRefusedException}) and torch's share that cannot be honoured
 * ({@code TorchInteropException}).
 */
public class InteropException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public InteropException(String message) {
        super(message);
    }

    /**
     * An exception with {@code message} and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause the failure beneath it
     */
    public InteropException(String message, Throwable cause) {
        super(message, cause);
    }
}
