package org.cudaipc4j.cuda.ipc;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.cudaipc4j.base.CallScratch;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;

/** Helpers of the sharing layer: result checks and handle bytes (out-parameters: {@code DriverCalls}). */
final class Checks {
    private Checks() {}

    /** The {@link CudaException} for {@code code}, returned by {@code function}. */
    static CudaException failure(CudaFunction function, int code) {
        return CudaException.of(function.name(), code);
    }

    /** Attaches the failure of a clean-up call to {@code primary}, unless it succeeded. */
    static void suppress(Throwable primary, CudaFunction function, int result) {
        if (result != CudaFunction.CUDA_SUCCESS) {
            primary.addSuppressed(failure(function, result));
        }
    }

    /**
     * A pointer-sized out-parameter of an open: this thread's {@link CallScratch}, used as is (no slice made per
     * call), read only after the call succeeded and before any other call on the thread, as {@link CallScratch} asks:
     * a reader opens one handle per share.
     */
    static MemorySegment scratchOut() {
        return CallScratch.get();
    }

    /** A copy of {@code bytes}, checked to be an IPC handle's 64 bytes. */
    static byte[] handleBytes(byte[] bytes, String what) {
        if (bytes == null || bytes.length != CuSymbols.IPC_HANDLE_SIZE) { // the message made only when it is needed
            requireLength(bytes, CuSymbols.IPC_HANDLE_SIZE, "an IPC " + what + " handle");
        }
        return bytes.clone();
    }

    /**
     * {@code bytes}, checked to be {@code size} bytes long.
     *
     * @param what names the bytes in the message, such as "a fabric handle"
     */
    static byte[] requireLength(byte[] bytes, long size, String what) {
        if (bytes == null || bytes.length != size) {
            throw new IllegalArgumentException(what + " is " + size + " bytes, got "
                    + (bytes == null ? "null" : bytes.length + " bytes"));
        }
        return bytes;
    }

    /** {@code hex} (128 hex digits) as handle bytes. */
    static byte[] handleHex(String hex, String what) {
        byte[] bytes;
        try {
            bytes = HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("an IPC " + what + " handle must be 128 hex digits: " + e.getMessage());
        }
        return handleBytes(bytes, what);
    }
}
