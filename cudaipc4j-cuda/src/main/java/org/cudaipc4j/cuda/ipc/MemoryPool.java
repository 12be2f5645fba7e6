package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.ForeignResource;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.PoolCalls;

/**
 * A stream-ordered memory pool ({@code cuMemPoolCreate}) whose allocations other processes can map: the kind
 * {@code cudaMallocAsync}, RMM's async resource and NVIDIA's {@code cuda.core} use. The pool travels once (a file
 * descriptor or a fabric handle); then each {@link PoolBuffer} travels as 64 bytes. An importing process imports the
 * pool ({@link #importFileDescriptor}) and then its buffers ({@link #importBuffer}); it must close those before the
 * exporter frees them.
 *
 * <p>Owned by its {@link Context}; closing a pool closes its buffers first. Thread-safe.
 */
public final class MemoryPool extends ForeignResource {
    private static final VarHandle ALLOC_TYPE = CuSymbols.CU_MEM_POOL_PROPS.varHandle(groupElement("allocType"));
    private static final VarHandle HANDLE_TYPES = CuSymbols.CU_MEM_POOL_PROPS.varHandle(groupElement("handleTypes"));
    private static final VarHandle LOCATION_TYPE = CuSymbols.CU_MEM_POOL_PROPS.varHandle(groupElement("location"),
            groupElement("type"));
    private static final VarHandle LOCATION_ID = CuSymbols.CU_MEM_POOL_PROPS.varHandle(groupElement("location"),
            groupElement("id"));
    private static final VarHandle MAX_SIZE = CuSymbols.CU_MEM_POOL_PROPS.varHandle(groupElement("maxSize"));

    private final MemorySegment handle;
    private final Set<ShareableHandleType> handleTypes;
    private final boolean imported;
    private final long poolId;
    /**
     * The pool's first export, made when it is created (a pool's pointers can be exported only once the pool itself
     * has been, as cuda.core does too): a file descriptor kept open until the pool is destroyed, or -1.
     */
    private volatile int firstExport = -1;
    /** Buffers of this pool still open, closed before the pool; guarded by itself. */
    private final java.util.LinkedHashSet<PoolBuffer> buffers = new java.util.LinkedHashSet<>();

    private MemoryPool(Context context, MemorySegment handle, Set<ShareableHandleType> handleTypes, boolean imported) {
        super(context);
        this.handle = handle;
        this.handleTypes = Set.copyOf(handleTypes);
        this.imported = imported;
        this.poolId = SharedMemoryDescriptor.newPoolId();
    }

    /**
     * Creates a pool on {@code context}'s device whose allocations can be exported as {@code types}.
     *
     * @param context the context whose device holds the pool
     * @param types how its allocations may be exported
     * @param maxBytes the most the pool may hold, 0 for the driver's default (the device's memory)
     * @return the pool
     */
    public static MemoryPool create(Context context, Set<ShareableHandleType> types, long maxBytes) {
        Set<ShareableHandleType> exportable = types.isEmpty() ? EnumSet.noneOf(ShareableHandleType.class)
                : EnumSet.copyOf(types);
        context.makeCurrent();
        MemorySegment pool;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment props = arena.allocate(CuSymbols.CU_MEM_POOL_PROPS);
            ALLOC_TYPE.set(props, 0L, Vmm.ALLOCATION_TYPE_PINNED);
            HANDLE_TYPES.set(props, 0L, ShareableHandleType.bits(exportable));
            LOCATION_TYPE.set(props, 0L, Vmm.LOCATION_TYPE_DEVICE);
            LOCATION_ID.set(props, 0L, context.device().ordinal());
            MAX_SIZE.set(props, 0L, maxBytes);
            MemorySegment out = DriverCalls.pointerOut(arena);
            int r = PoolCalls.cuMemPoolCreate(out, props);
            if (r != CudaFunction.CUDA_SUCCESS) {
                throw exportable.contains(ShareableHandleType.FABRIC)
                        ? Vmm.fabricFailure(CudaFunction.cuMemPoolCreate, r)
                        : Checks.failure(CudaFunction.cuMemPoolCreate, r);
            }
            pool = DriverCalls.handle(out);
        }
        MemoryPool created = adopt(context, pool, exportable, false);
        try {
            if (exportable.contains(ShareableHandleType.POSIX_FILE_DESCRIPTOR)) {
                created.firstExport = created.exportFileDescriptor();
            } else if (exportable.contains(ShareableHandleType.FABRIC)) {
                created.exportFabricHandle();
            }
        } catch (RuntimeException e) {
            Closing.closeAfter(created, e);
            throw e;
        }
        return created;
    }

    private static MemoryPool adopt(Context context, MemorySegment pool, Set<ShareableHandleType> types,
            boolean imported) {
        try {
            return new MemoryPool(context, pool, types, imported);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> PoolCalls.memPoolDestroy(pool), e);
            throw e;
        }
    }

    /**
     * Imports another process's pool from its file descriptor (the caller keeps owning {@code fd}), and lets this
     * context's device use it when the pool lives on another device.
     *
     * @param context the context that uses the pool
     * @param fd the pool's file descriptor
     * @param poolDevice the UUID of the exporter's device
     * @return the imported pool
     */
    public static MemoryPool importFileDescriptor(Context context, int fd, UUID poolDevice) {
        return importPool(context, Vmm.fdAsPointer(fd), ShareableHandleType.POSIX_FILE_DESCRIPTOR, poolDevice);
    }

    /**
     * As {@link #importFileDescriptor} for the pool's 64-byte fabric handle.
     *
     * @param context the context that uses the pool
     * @param fabricHandle the pool's fabric handle
     * @param poolDevice the UUID of the exporter's device
     * @return the imported pool
     */
    public static MemoryPool importFabricHandle(Context context, byte[] fabricHandle, UUID poolDevice) {
        try (Arena arena = Arena.ofConfined()) {
            return importPool(context, Vmm.fabricHandle(arena, fabricHandle), ShareableHandleType.FABRIC, poolDevice);
        }
    }

    private static MemoryPool importPool(Context context, MemorySegment osHandle, ShareableHandleType type,
            UUID poolDevice) {
        context.makeCurrent();
        MemorySegment pool;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = DriverCalls.pointerOut(arena);
            int r = PoolCalls.cuMemPoolImportFromShareableHandle(out, osHandle, type.code(), 0);
            if (r != CudaFunction.CUDA_SUCCESS) {
                CudaFunction imported = CudaFunction.cuMemPoolImportFromShareableHandle;
                throw type == ShareableHandleType.FABRIC ? Vmm.fabricFailure(imported, r) : Checks.failure(imported, r);
            }
            pool = DriverCalls.handle(out);
            if (!context.device().uuid().equals(poolDevice)) {
                int access = PoolCalls.cuMemPoolSetAccess(pool, Vmm.readWriteAccess(arena, context.device()), 1);
                if (access != CudaFunction.CUDA_SUCCESS) {
                    CudaException e = Checks.failure(CudaFunction.cuMemPoolSetAccess, access);
                    Closing.closeAfter(() -> PoolCalls.memPoolDestroy(pool), e);
                    throw e;
                }
            }
        }
        return adopt(context, pool, Set.of(type), true);
    }

    /** {@return the {@code CUmemoryPool}} */
    public MemorySegment handle() {
        requireOpen();
        return handle;
    }

    /** {@return true for a pool imported from another process} */
    public boolean isImported() {
        return imported;
    }

    long poolId() {
        return poolId;
    }

    Set<ShareableHandleType> handleTypes() {
        return handleTypes;
    }

    /**
     * Allocates {@code bytes} from the pool in stream order ({@code cuMemAllocFromPoolAsync}) and waits for the
     * allocation, so that the buffer can be exported at once.
     *
     * @param bytes the size in bytes
     * @param stream the stream the allocation is ordered on
     * @return the buffer
     */
    public PoolBuffer allocate(long bytes, Stream stream) {
        if (imported) {
            throw new IllegalStateException("allocate from the exporter's pool, not from an imported one");
        }
        if (bytes < 1) {
            throw new IllegalArgumentException("a pool allocation needs at least 1 byte, got " + bytes);
        }
        context().makeCurrent();
        long address;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            PoolCalls.memAllocFromPoolAsync(out, bytes, handle(), stream.handle());
            address = out.get(JAVA_LONG, 0);
        }
        try {
            stream.synchronize();
        } catch (RuntimeException e) {
            // freed in the order of the stream it was allocated on
            Closing.closeAfter(() -> PoolCalls.memFreeAsync(address, stream.handle()), e);
            throw e;
        }
        return PoolBuffer.adopt(this, address, bytes, false);
    }

    /**
     * Maps one of the exporter's buffers from its 64 bytes of export data ({@code cuMemPoolImportPointer}). Close it
     * before the exporter frees the buffer.
     *
     * @param exportData the buffer's export data ({@link PoolBuffer#exportPointer()})
     * @param bytes the buffer's size in bytes
     * @return the mapped buffer
     */
    public PoolBuffer importBuffer(byte[] exportData, long bytes) {
        if (!imported) {
            throw new IllegalStateException("buffers are imported into an imported pool");
        }
        Checks.requireLength(exportData, CuSymbols.CU_MEM_POOL_PTR_EXPORT_DATA.byteSize(),
                "a pool pointer's export data");
        context().makeCurrent();
        long address;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(CuSymbols.CU_MEM_POOL_PTR_EXPORT_DATA);
            MemorySegment.copy(exportData, 0, data, JAVA_BYTE, 0, exportData.length);
            MemorySegment out = arena.allocate(JAVA_LONG);
            PoolCalls.memPoolImportPointer(out, handle(), data);
            address = out.get(JAVA_LONG, 0);
        }
        return PoolBuffer.adopt(this, address, bytes, true);
    }

    /** {@return a new file descriptor for this pool; the caller owns it and closes it once passed on} */
    public int exportFileDescriptor() {
        requireExportable(ShareableHandleType.POSIX_FILE_DESCRIPTOR);
        context().makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            PoolCalls.memPoolExportToShareableHandle(out, handle(),
                    ShareableHandleType.POSIX_FILE_DESCRIPTOR.code(), 0);
            return out.get(JAVA_INT, 0);
        }
    }

    /**
     * {@return the pool's 64-byte fabric handle}
     *
     * @throws CudaException without the IMEX service, saying so
     */
    public byte[] exportFabricHandle() {
        requireExportable(ShareableHandleType.FABRIC);
        context().makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(CuSymbols.CU_MEM_FABRIC_HANDLE);
            int r = PoolCalls.cuMemPoolExportToShareableHandle(out, handle(), ShareableHandleType.FABRIC.code(),
                    0);
            if (r != CudaFunction.CUDA_SUCCESS) {
                throw Vmm.fabricFailure(CudaFunction.cuMemPoolExportToShareableHandle, r);
            }
            return out.toArray(JAVA_BYTE);
        }
    }

    private void requireExportable(ShareableHandleType type) {
        if (imported || !handleTypes.contains(type)) {
            throw new IllegalStateException(imported ? "an imported pool cannot be exported again"
                    : "this pool was created for " + handleTypes + ", not " + type);
        }
    }

    void track(PoolBuffer buffer) {
        synchronized (buffers) {
            buffers.add(buffer);
        }
    }

    void forget(PoolBuffer buffer) {
        synchronized (buffers) {
            buffers.remove(buffer);
        }
    }

    /**
     * Closes the buffers still open (newest first), then destroys the pool ({@code cuMemPoolDestroy}); an imported
     * one drops this process's reference. The pool's exported descriptor is closed and the pool destroyed even when
     * a buffer fails to close.
     */
    @Override
    protected void releaseResource() {
        java.util.List<AutoCloseable> steps = new java.util.ArrayList<>();
        synchronized (buffers) {
            steps.addAll(buffers.reversed());
        }
        steps.add(() -> {
            if (firstExport >= 0) {
                Libc.close(firstExport);
                firstExport = -1;
            }
        });
        steps.add(() -> {
            context().makeCurrent();
            PoolCalls.memPoolDestroy(handle);
        });
        Closing.closeAll(steps.toArray(AutoCloseable[]::new));
    }

    @Override
    public String toString() {
        return (imported ? "imported memory pool" : "memory pool") + " on " + context().device();
    }
}
