package org.cudaipc4j.interop.torch;

import org.cudaipc4j.interop.InteropException;

/** A torch share that cannot be honoured here; the message says why and what the user can change. */
public class TorchInteropException extends InteropException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public TorchInteropException(String message) {
        super(message);
    }

    /**
     * An exception with {@code message} and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause the failure beneath it
     */
    public TorchInteropException(String message, Throwable cause) {
        super(message, cause);
    }
}
