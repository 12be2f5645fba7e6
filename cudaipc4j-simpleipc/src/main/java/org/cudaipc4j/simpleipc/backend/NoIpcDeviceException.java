package org.cudaipc4j.simpleipc.backend;

/** No device can take part in IPC: the tool exits with the sample's EXIT_WAIVED (2). */
public final class NoIpcDeviceException extends BackendException {
    public NoIpcDeviceException(String message) {
        super(message);
    }
}
