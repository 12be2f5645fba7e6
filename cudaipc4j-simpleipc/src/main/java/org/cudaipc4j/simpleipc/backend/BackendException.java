package org.cudaipc4j.simpleipc.backend;

/** A backend operation failed; the message names the operation and the cause. */
public class BackendException extends RuntimeException {
    public BackendException(String message) {
        super(message);
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
