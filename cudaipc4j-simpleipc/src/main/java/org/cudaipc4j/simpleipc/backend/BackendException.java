package org.cudaipc4j.simpleipc.backend;

/**
 * A backend operation failed; the message names the operation and the cause. The root of the sample's exceptions:
 * one that finds no device for IPC ({@link NoIpcDeviceException}) is one too.
 */
public class BackendException extends RuntimeException {
    public BackendException(String message) {
        super(message);
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
