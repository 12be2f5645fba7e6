package org.cudaipc4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.MemoryCalls;

/**
 * A range of device memory: a {@link DeviceBuffer} this process allocated, a {@link DeviceSlice} of one, or memory of
 * another package or module (another process's memory mapped here by the sharing package
 * {@code org.cudaipc4j.cuda.ipc}, another framework's tensor). Offsets and lengths are in bytes and checked against
 * {@link #bytes()}.
 *
 * <p>Synchronous operations return once the device memory holds the result (CUDA's own memset, pageable
 * host-to-device and device-to-device copies may return earlier; these wait for the legacy default stream they
 * ran on), so work on any stream, non-blocking ones included, sees it. Synchronous copies accept any segment
 * (heap segments go through a native staging buffer); asynchronous ones need a native segment, ideally a
 * {@link PinnedArena}'s, which must stay valid until the stream reaches the copy. Every operation makes
 * {@link #context()} current on the calling thread.
 */
public interface DeviceMemory {
    /**
     * {@return the device address of byte 0}
     *
     * @throws IllegalStateException when closed
     */
    long address();

    /** {@return the length in bytes} */
    long bytes();

    /** {@return the context the memory belongs to} */
    Context context();

    /**
     * The {@code count} bytes from {@code offset}, as memory of their own (a view; see {@link DeviceSlice}).
     *
     * @param offset the first byte
     * @param count how many bytes
     * @return the slice
     */
    default DeviceSlice slice(long offset, long count) {
        return new DeviceSlice(this, offset, count);
    }

    /**
     * Sets every byte to {@code value} ({@code cuMemsetD8_v2}).
     *
     * @param value the byte to write
     */
    default void memset(byte value) {
        memset(0, bytes(), value);
    }

    /**
     * Sets {@code count} bytes from {@code offset} to {@code value}.
     *
     * @param offset the first byte
     * @param count how many bytes
     * @param value the byte to write
     */
    default void memset(long offset, long count, byte value) {
        long dst = address() + Objects.checkFromIndexSize(offset, count, bytes());
        context().makeCurrent();
        MemoryCalls.memsetD8(dst, value & 0xff, count);
        DriverCalls.waitForLegacyStream();
    }

    /**
     * Enqueues setting every byte to {@code value} on {@code stream} ({@code cuMemsetD8Async}).
     *
     * @param value the byte to write
     * @param stream the stream it runs on
     */
    default void memsetAsync(byte value, Stream stream) {
        memsetAsync(0, bytes(), value, stream);
    }

    /**
     * Enqueues setting {@code count} bytes from {@code offset} to {@code value} on {@code stream}.
     *
     * @param offset the first byte
     * @param count how many bytes
     * @param value the byte to write
     * @param stream the stream it runs on
     */
    default void memsetAsync(long offset, long count, byte value, Stream stream) {
        long dst = address() + Objects.checkFromIndexSize(offset, count, bytes());
        context().makeCurrent();
        MemoryCalls.memsetD8Async(dst, value & 0xff, count, stream.handle());
    }

    /**
     * Copies all of {@code src} to this memory at {@code dstOffset} and waits for it.
     *
     * @param dstOffset where in this memory the copy starts
     * @param src the host memory to copy
     */
    default void copyFrom(long dstOffset, MemorySegment src) {
        long dst = address() + Objects.checkFromIndexSize(dstOffset, src.byteSize(), bytes());
        context().makeCurrent();
        if (src.isNative()) {
            MemoryCalls.memcpyHtoD(dst, src, src.byteSize());
        } else {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment staging = arena.allocate(Math.min(src.byteSize(), Cu.STAGING_CHUNK));
                for (long done = 0; done < src.byteSize(); done += staging.byteSize()) {
                    long n = Math.min(staging.byteSize(), src.byteSize() - done);
                    MemorySegment.copy(src, done, staging, 0, n);
                    MemoryCalls.memcpyHtoD(dst + done, staging, n);
                }
            }
        }
        DriverCalls.waitForLegacyStream();
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcOffset} to this memory at {@code dstOffset}.
     *
     * @param dstOffset where in this memory the copy starts
     * @param src the array to copy from
     * @param srcOffset the first byte of {@code src} copied
     * @param length how many bytes
     */
    default void copyFrom(long dstOffset, byte[] src, int srcOffset, int length) {
        Objects.checkFromIndexSize(srcOffset, length, src.length);
        copyFrom(dstOffset, MemorySegment.ofArray(src).asSlice(srcOffset, length));
    }

    /**
     * Copies {@code dst.byteSize()} bytes of this memory from {@code srcOffset} into {@code dst} and waits.
     *
     * @param srcOffset where in this memory the copy starts
     * @param dst the host memory to fill
     */
    default void copyTo(long srcOffset, MemorySegment dst) {
        long src = address() + Objects.checkFromIndexSize(srcOffset, dst.byteSize(), bytes());
        context().makeCurrent();
        if (dst.isNative()) {
            MemoryCalls.memcpyDtoH(dst, src, dst.byteSize());
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(Math.min(dst.byteSize(), Cu.STAGING_CHUNK));
            for (long done = 0; done < dst.byteSize(); done += staging.byteSize()) {
                long n = Math.min(staging.byteSize(), dst.byteSize() - done);
                MemoryCalls.memcpyDtoH(staging, src + done, n);
                MemorySegment.copy(staging, 0, dst, done, n);
            }
        }
    }

    /**
     * Copies {@code length} bytes of this memory from {@code srcOffset} into {@code dst} at {@code dstOffset}.
     *
     * @param srcOffset where in this memory the copy starts
     * @param dst the array to fill
     * @param dstOffset the first byte of {@code dst} written
     * @param length how many bytes
     */
    default void copyTo(long srcOffset, byte[] dst, int dstOffset, int length) {
        Objects.checkFromIndexSize(dstOffset, length, dst.length);
        copyTo(srcOffset, MemorySegment.ofArray(dst).asSlice(dstOffset, length));
    }

    /**
     * {@return {@code length} bytes from {@code offset}, as a new array}
     *
     * @param offset the first byte
     * @param length how many bytes
     */
    default byte[] read(long offset, int length) {
        byte[] out = new byte[length];
        copyTo(offset, out, 0, length);
        return out;
    }

    /**
     * Enqueues a copy of all of the native segment {@code src} to this memory at {@code dstOffset}.
     *
     * @param dstOffset where in this memory the copy starts
     * @param src the host memory to copy
     * @param stream the stream it runs on
     */
    default void copyFromAsync(long dstOffset, MemorySegment src, Stream stream) {
        Cu.requireNative(src);
        long dst = address() + Objects.checkFromIndexSize(dstOffset, src.byteSize(), bytes());
        context().makeCurrent();
        MemoryCalls.memcpyHtoDAsync(dst, src, src.byteSize(), stream.handle());
    }

    /**
     * Enqueues a copy of {@code dst.byteSize()} bytes from {@code srcOffset} into the native segment {@code dst}.
     *
     * @param srcOffset where in this memory the copy starts
     * @param dst the host memory to fill
     * @param stream the stream it runs on
     */
    default void copyToAsync(long srcOffset, MemorySegment dst, Stream stream) {
        Cu.requireNative(dst);
        long src = address() + Objects.checkFromIndexSize(srcOffset, dst.byteSize(), bytes());
        context().makeCurrent();
        MemoryCalls.memcpyDtoHAsync(dst, src, dst.byteSize(), stream.handle());
    }

    /**
     * Copies {@code count} bytes of {@code src} from {@code srcOffset} to this memory at {@code dstOffset}.
     *
     * @param dstOffset where in this memory the copy starts
     * @param src the device memory to copy from
     * @param srcOffset the first byte of {@code src} copied
     * @param count how many bytes
     */
    default void copyFrom(long dstOffset, DeviceMemory src, long srcOffset, long count) {
        long dst = address() + Objects.checkFromIndexSize(dstOffset, count, bytes());
        long from = src.address() + Objects.checkFromIndexSize(srcOffset, count, src.bytes());
        context().makeCurrent();
        MemoryCalls.memcpyDtoD(dst, from, count);
        DriverCalls.waitForLegacyStream();
    }

    /**
     * Enqueues a device-to-device copy on {@code stream}.
     *
     * @param dstOffset where in this memory the copy starts
     * @param src the device memory to copy from
     * @param srcOffset the first byte of {@code src} copied
     * @param count how many bytes
     * @param stream the stream it runs on
     */
    default void copyFromAsync(long dstOffset, DeviceMemory src, long srcOffset, long count, Stream stream) {
        long dst = address() + Objects.checkFromIndexSize(dstOffset, count, bytes());
        long from = src.address() + Objects.checkFromIndexSize(srcOffset, count, src.bytes());
        context().makeCurrent();
        MemoryCalls.memcpyDtoDAsync(dst, from, count, stream.handle());
    }
}
