package org.cudaipc4j.cuda;

import java.io.Serial;

/**
 * The root of what the CUDA library throws: catch it for any failure of the driver. Beneath it, a driver call that
 * failed ({@link CudaException}, with the call, the error's name and the driver's description), a driver that does
 * not load ({@link DriverNotFoundException}) and a driver too old for a call ({@link MissingSymbolException}).
 */
public class CudaDriverException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public CudaDriverException(String message) {
        super(message);
    }
}
