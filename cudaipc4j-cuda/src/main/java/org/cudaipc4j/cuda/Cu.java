package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.cuda.driver.CuDriver;

/** Helpers shared by the typed layer: result checks and out-parameters. */
final class Cu {
    static final int CUDA_SUCCESS = 0;
    static final int CUDA_ERROR_NOT_READY = 600;
    static final int CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;

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
        if (result != CUDA_SUCCESS) {
            throw CudaException.of(call, result);
        }
    }

    /** Runs a checked clean-up call and attaches its {@link CudaException}, if any, to {@code primary}. */
    static void suppress(Throwable primary, Runnable cleanup) {
        try {
            cleanup.run();
        } catch (CudaException failed) {
            primary.addSuppressed(failed);
        }
    }

    /** Waits for the legacy default stream, where the synchronous memset and copy calls run. */
    static void waitForLegacyStream() {
        CuDriver.STREAM_SYNCHRONIZE.check(MemorySegment.NULL);
    }

    /** Reads the handle a call stored into the pointer-sized out-parameter {@code out}. */
    static MemorySegment handle(MemorySegment out) {
        return out.get(ADDRESS, 0);
    }

    /** A pointer-sized out-parameter in {@code arena}, zeroed. */
    static MemorySegment pointerOut(Arena arena) {
        return arena.allocate(ADDRESS);
    }
}
