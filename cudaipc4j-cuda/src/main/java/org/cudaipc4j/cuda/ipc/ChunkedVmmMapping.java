package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.VmmCalls;

/**
 * Several VMM allocations of another process, all of one size, imported ({@code cuMemImportFromShareableHandle})
 * and mapped side by side into one reserved address range: chunk {@code i} at {@code i * chunkBytes()}, read-write
 * for this context's device. This is how an allocator that grows a segment chunk by chunk (PyTorch's expandable
 * segments) shares a block that spans several chunks: the reader sees the same contiguous bytes the producer does.
 *
 * <p>Each import holds its own reference to its memory: the file descriptors can be closed right after
 * {@link #importFileDescriptors} returns. {@link #close()} unmaps every chunk, frees the range and releases the
 * imports. Owned by its {@link Context}; thread-safe.
 */
public final class ChunkedVmmMapping extends SharedRange {
    private final long chunkBytes;
    private final long[] handles;

    private ChunkedVmmMapping(Context context, long address, long chunkBytes, long[] handles) {
        super(context, address, chunkBytes * handles.length);
        this.chunkBytes = chunkBytes;
        this.handles = handles;
    }

    /**
     * Imports the allocation behind each of {@code fds} (the caller keeps owning them) and maps them in order,
     * {@code chunkBytes} each: every exporter's allocation has that size, a multiple of the device's minimum
     * allocation granularity.
     *
     * @param context the context to map into
     * @param fds one file descriptor per chunk, in order
     * @param chunkBytes the size of each chunk
     * @return the mapping
     * @throws CudaException            when a descriptor is not an allocation's, or the driver refuses a step;
     *                                  everything done before is undone
     * @throws IllegalArgumentException for no descriptors, a negative one, or a size that is not a multiple of the
     *                                  minimum granularity
     */
    public static ChunkedVmmMapping importFileDescriptors(Context context, int[] fds, long chunkBytes) {
        Objects.requireNonNull(fds, "fds");
        MemorySegment[] osHandles = new MemorySegment[fds.length];
        for (int i = 0; i < fds.length; i++) {
            osHandles[i] = Vmm.fdAsPointer(fds[i]);
        }
        return map(context, osHandles, ShareableHandleType.POSIX_FILE_DESCRIPTOR, chunkBytes);
    }

    /**
     * Imports the allocations named by 64-byte fabric handles and maps them in order, {@code chunkBytes} each.
     *
     * @param context the context to map into
     * @param fabricHandles one handle per chunk, in order
     * @param chunkBytes the size of each chunk
     * @return the mapping
     * @throws CudaException when the driver refuses; without the IMEX service the message says so
     */
    public static ChunkedVmmMapping importFabricHandles(Context context, List<byte[]> fabricHandles,
            long chunkBytes) {
        Objects.requireNonNull(fabricHandles, "fabricHandles");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] osHandles = new MemorySegment[fabricHandles.size()];
            for (int i = 0; i < osHandles.length; i++) {
                osHandles[i] = Vmm.fabricHandle(arena, fabricHandles.get(i));
            }
            return map(context, osHandles, ShareableHandleType.FABRIC, chunkBytes);
        }
    }

    private static ChunkedVmmMapping map(Context context, MemorySegment[] osHandles, ShareableHandleType type,
            long chunkBytes) {
        int n = osHandles.length;
        if (n == 0) {
            throw new IllegalArgumentException("a chunked mapping needs at least one chunk");
        }
        if (chunkBytes < 1) {
            throw new IllegalArgumentException("a chunk needs at least 1 byte, got " + chunkBytes);
        }
        long total;
        try {
            total = Math.multiplyExact(chunkBytes, (long) n);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(n + " chunks of " + chunkBytes + " bytes overflow a 64-bit size");
        }
        Device device = context.device();
        context.makeCurrent();
        // The exporter chose the chunk size: any multiple of the minimum granularity maps.
        long granularity = Vmm.minimumGranularity(device, Set.of(type));
        Vmm.requireMappable(chunkBytes, granularity, "a chunk", device);
        long[] handles = new long[n];
        int imported = 0;
        long address = 0;
        int mapped = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            for (; imported < n; imported++) {
                int r = VmmCalls.cuMemImportFromShareableHandle(out, osHandles[imported], type.code());
                if (r != CudaFunction.CUDA_SUCCESS) {
                    throw withChunk(type == ShareableHandleType.FABRIC
                            ? Vmm.fabricFailure(CudaFunction.cuMemImportFromShareableHandle, r)
                            : Checks.failure(CudaFunction.cuMemImportFromShareableHandle, r), imported, n);
                }
                handles[imported] = out.get(JAVA_LONG, 0);
            }
            VmmCalls.memAddressReserve(out, total, granularity, 0, 0);
            address = out.get(JAVA_LONG, 0);
            for (; mapped < n; mapped++) {
                int r = VmmCalls.cuMemMap(address + mapped * chunkBytes, chunkBytes, 0, handles[mapped], 0);
                if (r != CudaFunction.CUDA_SUCCESS) {
                    throw withChunk(Checks.failure(CudaFunction.cuMemMap, r), mapped, n);
                }
            }
            VmmCalls.memSetAccess(address, total, Vmm.readWriteAccess(arena, device), 1);
            return new ChunkedVmmMapping(context, address, chunkBytes, handles);
        } catch (RuntimeException e) {
            undo(e, address, chunkBytes, mapped, handles, imported);
            throw e;
        }
    }

    /** {@code e} with the chunk it concerns, so that a refusal of one chunk of many says which. */
    private static CudaException withChunk(CudaException e, int chunk, int chunks) {
        if (chunks == 1) {
            return e;
        }
        return new CudaException(e.call(), e.code(), e.errorName(), e.description() + " (chunk " + chunk + " of "
                + chunks + ")");
    }

    /** Undoes a failed {@link #map}: unmaps what was mapped, frees the range, releases what was imported. */
    private static void undo(RuntimeException e, long address, long chunkBytes, int mapped, long[] handles,
            int imported) {
        for (int i = 0; i < mapped; i++) {
            long chunk = address + i * chunkBytes;
            Closing.closeAfter(() -> VmmCalls.memUnmap(chunk, chunkBytes), e);
        }
        if (address != 0) {
            Closing.closeAfter(() -> VmmCalls.memAddressFree(address, chunkBytes * handles.length), e);
        }
        for (int i = 0; i < imported; i++) {
            long handle = handles[i];
            Closing.closeAfter(() -> VmmCalls.memRelease(handle), e);
        }
    }

    /** {@return the size of each chunk} */
    public long chunkBytes() {
        return chunkBytes;
    }

    /** {@return how many chunks are mapped} */
    public int chunks() {
        return handles.length;
    }

    /** Unmaps every chunk, frees the address range and releases this process's references to the memory. */
    @Override
    protected void releaseResource() {
        context().makeCurrent();
        List<AutoCloseable> steps = new ArrayList<>(2 * handles.length + 1);
        for (int i = 0; i < handles.length; i++) {
            long at = address + i * chunkBytes;
            steps.add(() -> VmmCalls.memUnmap(at, chunkBytes));
        }
        steps.add(() -> VmmCalls.memAddressFree(address, bytes));
        for (long h : handles) {
            steps.add(() -> VmmCalls.memRelease(h));
        }
        Closing.closeAll(steps.toArray(AutoCloseable[]::new));
    }

    @Override
    public String toString() {
        return "VMM mapping of " + handles.length + " chunk" + (handles.length == 1 ? "" : "s") + " of "
                + chunkBytes + " bytes on " + context().device();
    }
}
