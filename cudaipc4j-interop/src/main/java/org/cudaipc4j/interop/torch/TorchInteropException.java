package org.cudaipc4j.interop.torch;

/** A torch share that cannot be honoured here; the message says why and what the user can change. */
public class TorchInteropException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TorchInteropException(String message) {
        super(message);
    }

    public TorchInteropException(String message, Throwable cause) {
        super(message, cause);
    }
}
