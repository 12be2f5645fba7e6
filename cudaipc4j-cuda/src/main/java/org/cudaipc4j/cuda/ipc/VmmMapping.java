package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.VmmCalls;

/**
 * Another process's {@link VmmAllocation}, imported from its file descriptor or fabric handle
 * ({@code cuMemImportFromShareableHandle}) and mapped read-write for this context's device. The import holds its
 * own reference to the memory: the file descriptor can be closed right after {@link #importFileDescriptor}, and the
 * memory lives until both sides have released it. Owned by its {@link Context}; thread-safe.
 */
public final class VmmMapping extends SharedRange {
    private final long handle;

    private VmmMapping(Context context, long handle, long address, long bytes) {
        super(context, address, bytes);
        this.handle = handle;
    }

    /**
     * Imports the allocation behind {@code fd} (the caller keeps owning {@code fd}) and maps {@code bytes} of it: the
     * exporter's {@link VmmAllocation#bytes()}, a multiple of the device's minimum granularity.
     *
     * @param context the context to map into
     * @param fd the allocation's file descriptor
     * @param bytes the size to map
     * @return the mapping
     * @throws CudaException when {@code fd} is not an allocation's descriptor, or the size does not fit
     */
    public static VmmMapping importFileDescriptor(Context context, int fd, long bytes) {
        return map(context, Vmm.fdAsPointer(fd), ShareableHandleType.POSIX_FILE_DESCRIPTOR, bytes);
    }

    /**
     * Imports the allocation named by a 64-byte fabric handle and maps {@code bytes} of it.
     *
     * @param context the context to map into
     * @param fabricHandle the allocation's fabric handle
     * @param bytes the size to map
     * @return the mapping
     * @throws CudaException when the driver refuses; without the IMEX service the message says so
     */
    public static VmmMapping importFabricHandle(Context context, byte[] fabricHandle, long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            return map(context, Vmm.fabricHandle(arena, fabricHandle), ShareableHandleType.FABRIC, bytes);
        }
    }

    private static VmmMapping map(Context context, MemorySegment osHandle, ShareableHandleType type, long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("a mapping needs at least 1 byte, got " + bytes);
        }
        Device device = context.device();
        context.makeCurrent();
        long granularity = Vmm.minimumGranularity(device, Set.of(type));
        Vmm.requireMappable(bytes, granularity, "a mapping (send the exporter's bytes())", device);
        long handle;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            int r = VmmCalls.cuMemImportFromShareableHandle(out, osHandle, type.code());
            if (r != CudaFunction.CUDA_SUCCESS) {
                CudaFunction imported = CudaFunction.cuMemImportFromShareableHandle;
                throw type == ShareableHandleType.FABRIC ? Vmm.fabricFailure(imported, r) : Checks.failure(imported, r);
            }
            handle = out.get(JAVA_LONG, 0);
        }
        return Vmm.mapOwned(handle, bytes, granularity, device,
                address -> new VmmMapping(context, handle, address, bytes));
    }

    /** Unmaps and releases this process's reference to the memory. */
    @Override
    protected void releaseResource() {
        context().makeCurrent();
        Vmm.unmapAndRelease(address, bytes, handle);
    }

    @Override
    public String toString() {
        return "VMM mapping of " + bytes + " bytes on " + context().device();
    }
}
