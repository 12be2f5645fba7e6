package org.cudaipc4j.cuda;

import java.lang.foreign.MemorySegment;
import org.cudaipc4j.cuda.driver.CudaFunction;

/** Helpers of the typed layer: result checks and the memory of copies (out-parameters: {@code DriverCalls}). */
final class Cu {
    /** Bytes staged per step when copying between a heap segment and device memory. */
    static final long STAGING_CHUNK = 4L << 20;

    private Cu() {}

    /** Asynchronous copies need memory the driver can address after the call returns. */
    static void requireNative(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("asynchronous copies need a native segment (use a PinnedArena)");
        }
    }

    /**
     * Throws a {@link CudaException} naming {@code call} unless {@code result} is {@code CUDA_SUCCESS}: for a call
     * named with more than its function (the kernel launched, the function looked up).
     */
    static void check(String call, int result) {
        if (result != CudaFunction.CUDA_SUCCESS) {
            throw CudaException.of(call, result);
        }
    }
}
