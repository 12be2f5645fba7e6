package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import org.cudaipc4j.base.Layouts;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.VmmCalls;

/**
 * Device memory from the virtual memory management API ({@code cuMemCreate}, mapped into a reserved range of this
 * process's address space and made readable and writable by its device): the kind PyTorch's expandable segments,
 * NCCL and NVSHMEM use, shared through a POSIX file descriptor or a fabric handle rather than a legacy IPC handle.
 *
 * <p>Sizes are whole multiples of the device's allocation granularity: {@link #requestedBytes()} is what the caller
 * asked for, {@link #bytes()} what was allocated (rounded up) and what an importer maps. Owned by its
 * {@link Context}; thread-safe.
 */
public final class VmmAllocation extends SharedRange {
    private final long handle;
    private final long requestedBytes;
    private final Set<ShareableHandleType> handleTypes;

    private VmmAllocation(Context context, long handle, long address, long bytes, long requestedBytes,
            Set<ShareableHandleType> handleTypes) {
        super(context, address, bytes);
        this.handle = handle;
        this.requestedBytes = requestedBytes;
        this.handleTypes = Set.copyOf(handleTypes);
    }

    /**
     * The allocation granularity on {@code device} for memory exportable as {@code types}: sizes are rounded up to
     * a multiple of it ({@code cuMemGetAllocationGranularity}, recommended).
     *
     * @param device the device
     * @param types how the memory may be exported
     * @return the granularity in bytes
     */
    public static long granularity(Device device, Set<ShareableHandleType> types) {
        return Vmm.granularity(device, types);
    }

    /**
     * Allocates at least {@code bytes} on {@code context}'s device, exportable as {@code types}, and maps it
     * read-write for that device.
     *
     * @param context the context whose device holds the memory
     * @param bytes the size asked for
     * @param types how the memory may be exported
     * @return the allocation
     * @throws CudaException when the driver refuses (a fabric type without IMEX says so)
     */
    public static VmmAllocation create(Context context, long bytes, Set<ShareableHandleType> types) {
        if (bytes < 1) {
            throw new IllegalArgumentException("an allocation needs at least 1 byte, got " + bytes);
        }
        Set<ShareableHandleType> exportable = types.isEmpty() ? EnumSet.noneOf(ShareableHandleType.class)
                : EnumSet.copyOf(types);
        Device device = context.device();
        context.makeCurrent();
        long granularity = Vmm.granularity(device, exportable);
        long size = Layouts.alignUp(bytes, granularity);
        long handle;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            int r = VmmCalls.cuMemCreate(out, size, Vmm.allocationProp(arena, device, exportable), 0);
            if (r != CudaFunction.CUDA_SUCCESS) {
                throw exportable.contains(ShareableHandleType.FABRIC) ? Vmm.fabricFailure(CudaFunction.cuMemCreate, r)
                        : Checks.failure(CudaFunction.cuMemCreate, r);
            }
            handle = out.get(JAVA_LONG, 0);
        }
        return Vmm.mapOwned(handle, size, granularity, device,
                address -> new VmmAllocation(context, handle, address, size, bytes, exportable));
    }

    /** {@return the size asked for at creation} */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** {@return how it may be exported} */
    public Set<ShareableHandleType> handleTypes() {
        return handleTypes;
    }

    /**
     * A new POSIX file descriptor for this allocation ({@code cuMemExportToShareableHandle}); the caller owns it and
     * closes it once it has been passed on (the receiver gets its own copy).
     *
     * @return the new file descriptor
     * @throws IllegalStateException unless created with {@link ShareableHandleType#POSIX_FILE_DESCRIPTOR}
     */
    public int exportFileDescriptor() {
        requireType(ShareableHandleType.POSIX_FILE_DESCRIPTOR);
        context().makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            VmmCalls.memExportToShareableHandle(out, handle(),
                    ShareableHandleType.POSIX_FILE_DESCRIPTOR.code(), 0);
            return out.get(JAVA_INT, 0);
        }
    }

    /**
     * The allocation's 64-byte fabric handle ({@code cuMemExportToShareableHandle}).
     *
     * @return the handle's 64 bytes
     * @throws CudaException when the driver refuses; without the IMEX service the message says so
     */
    public byte[] exportFabricHandle() {
        requireType(ShareableHandleType.FABRIC);
        context().makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(CuSymbols.CU_MEM_FABRIC_HANDLE);
            int r = VmmCalls.cuMemExportToShareableHandle(out, handle(), ShareableHandleType.FABRIC.code(), 0);
            if (r != CudaFunction.CUDA_SUCCESS) {
                throw Vmm.fabricFailure(CudaFunction.cuMemExportToShareableHandle, r);
            }
            return out.toArray(JAVA_BYTE);
        }
    }

    /**
     * {@return a descriptor for a file descriptor export (the default) or a fabric export when that is the only type}
     */
    public SharedMemoryExport export() {
        if (handleTypes.contains(ShareableHandleType.POSIX_FILE_DESCRIPTOR)) {
            int fd = exportFileDescriptor();
            try {
                return new SharedMemoryExport(SharedMemoryDescriptor.of(IpcPath.VMM_FD, this, new byte[0], 0, 1),
                        new int[] {fd});
            } catch (RuntimeException e) {
                Libc.close(fd);
                throw e;
            }
        }
        if (handleTypes.contains(ShareableHandleType.FABRIC)) {
            return new SharedMemoryExport(SharedMemoryDescriptor.of(IpcPath.VMM_FABRIC, this, exportFabricHandle(),
                    0, 0), new int[0]);
        }
        throw new IllegalStateException("this VMM allocation was created without a shareable handle type");
    }

    private long handle() {
        requireOpen();
        return handle;
    }

    private void requireType(ShareableHandleType type) {
        if (!handleTypes.contains(type)) {
            throw new IllegalStateException("this VMM allocation was created for " + handleTypes + ", not " + type);
        }
    }

    /** Unmaps, frees the address range and releases the allocation (importers keep theirs until they release). */
    @Override
    protected void releaseResource() {
        context().makeCurrent();
        Vmm.unmapAndRelease(address, bytes, handle);
    }

    @Override
    public String toString() {
        return "VMM allocation of " + bytes + " bytes on " + context().device();
    }
}
