package org.cudaipc4j.interop.opening;

import org.cudaipc4j.interop.InteropException;

/**
 * A descriptor that cannot be opened the way it was given, found before the driver is touched: a bare expandable
 * segment's handle, file descriptors neither given nor takeable by number, an exporter in another PID namespace.
 * The message says why and what to give instead, in one line.
 */
public class OpenRefusedException extends InteropException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with {@code message}.
     *
     * @param message why, in one line
     */
    public OpenRefusedException(String message) {
        super(message);
    }
}
