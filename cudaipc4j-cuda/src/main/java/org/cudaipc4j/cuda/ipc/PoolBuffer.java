package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DeviceCalls;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.MemoryCalls;
import org.cudaipc4j.cuda.driver.PoolCalls;

/**
 * An allocation of a {@link MemoryPool}: made here ({@link MemoryPool#allocate}) or imported from another process
 * ({@link MemoryPool#importBuffer}). Closing it frees it and waits: an imported one for all work in its context,
 * one of this process's own for the legacy stream. An imported buffer must be closed before the exporter frees its
 * own. Owned by its {@link Context}; thread-safe.
 */
public final class PoolBuffer extends SharedRange {
    private final MemoryPool pool;
    private final boolean imported;

    private PoolBuffer(MemoryPool pool, long address, long bytes, boolean imported) {
        super(pool.context(), address, bytes);
        this.pool = pool;
        this.imported = imported;
    }

    static PoolBuffer adopt(MemoryPool pool, long address, long bytes, boolean imported) {
        try {
            PoolBuffer buffer = new PoolBuffer(pool, address, bytes, imported);
            pool.track(buffer);
            return buffer;
        } catch (RuntimeException e) {
            // Nothing ran on it yet.
            if (imported) {
                Closing.closeAfter(() -> MemoryCalls.memFree(address), e);
            } else {
                Closing.closeAfter(() -> PoolCalls.memFreeAsync(address, MemorySegment.NULL), e);
            }
            throw e;
        }
    }

    /** {@return the pool the buffer belongs to} */
    public MemoryPool pool() {
        return pool;
    }

    /** {@return true for a buffer of another process's pool} */
    public boolean isImported() {
        return imported;
    }

    /**
     * {@return the 64 bytes that name this buffer to a process that imported its pool ({@code cuMemPoolExportPointer})}
     */
    public byte[] exportPointer() {
        if (imported) {
            throw new IllegalStateException("an imported buffer cannot be exported again");
        }
        context().makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(CuSymbols.CU_MEM_POOL_PTR_EXPORT_DATA);
            PoolCalls.memPoolExportPointer(out, address());
            return out.toArray(JAVA_BYTE);
        }
    }

    /**
     * {@return a descriptor with the buffer's export data, and the pool's file descriptor (or, for a fabric-only pool,
     * its fabric handle in the descriptor)} The importer imports the pool once per export id of the pool and then the
     * buffer.
     */
    public SharedMemoryExport export() {
        byte[] data = exportPointer();
        if (pool.handleTypes().contains(ShareableHandleType.POSIX_FILE_DESCRIPTOR)) {
            int fd = pool.exportFileDescriptor();
            try {
                return new SharedMemoryExport(SharedMemoryDescriptor.of(IpcPath.POOL_FD, this, data, pool.poolId(), 1),
                        new int[] {fd});
            } catch (RuntimeException e) {
                Libc.close(fd);
                throw e;
            }
        }
        if (pool.handleTypes().contains(ShareableHandleType.FABRIC)) {
            byte[] both = new byte[128];
            System.arraycopy(data, 0, both, 0, 64);
            System.arraycopy(pool.exportFabricHandle(), 0, both, 64, 64);
            return new SharedMemoryExport(SharedMemoryDescriptor.of(IpcPath.POOL_FABRIC, this, both, pool.poolId(), 0),
                    new int[0]);
        }
        throw new IllegalStateException("the pool of this buffer was created without a shareable handle type");
    }

    /**
     * Frees the buffer and waits for the free. An imported one once all work in its context is done, with
     * {@code cuMemFree_v2}, which the driver allows for imported pool pointers and which does not wait for work on
     * stream-ordered memory itself ({@code cuMemFreeAsync} of an imported pointer took 10-13 ms on an H200,
     * {@code cuMemFree_v2} under 1 ms). One of this process's own in stream order on the legacy stream.
     */
    @Override
    protected void releaseResource() {
        pool.forget(this);
        context().makeCurrent();
        if (imported) {
            int synced = DeviceCalls.cuCtxSynchronize();
            int freed = MemoryCalls.cuMemFree_v2(address); // even after a failed wait: a broken context must not pin it
            if (synced != CudaFunction.CUDA_SUCCESS) {
                CudaException e = Checks.failure(CudaFunction.cuCtxSynchronize, synced);
                Checks.suppress(e, CudaFunction.cuMemFree_v2, freed);
                throw e;
            }
            CudaFunction.cuMemFree_v2.check(freed);
            return;
        }
        PoolCalls.memFreeAsync(address, MemorySegment.NULL);
        DriverCalls.waitForLegacyStream();
    }

    @Override
    public String toString() {
        return (imported ? "imported pool buffer" : "pool buffer") + " of " + bytes + " bytes on " + context().device();
    }
}
