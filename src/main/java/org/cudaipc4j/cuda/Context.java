package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.driver.CuDriver;

/**
 * A retained reference to a device's primary context. Resources created through it (buffers, streams, events,
 * modules, IPC mappings) make it current on the calling thread first; close them before the context.
 *
 * <p>The driver binds the current context per OS thread: use CUDA from platform threads.
 */
public final class Context implements AutoCloseable {
    private final Device device;
    private final MemorySegment handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Context(Device device, MemorySegment handle) {
        this.device = device;
        this.handle = handle;
    }

    /** Retains {@code device}'s primary context ({@code cuDevicePrimaryCtxRetain}); {@link #close()} releases it. */
    public static Context retainPrimary(Device device) {
        Cuda.init();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = Cu.pointerOut(arena);
            Cu.check("cuDevicePrimaryCtxRetain", CuDriver.cuDevicePrimaryCtxRetain(out, device.handle()));
            return new Context(device, Cu.handle(out));
        }
    }

    public Device device() {
        return device;
    }

    /** The {@code CUcontext}. */
    public MemorySegment handle() {
        requireOpen();
        return handle;
    }

    /** True once {@link #close()} has run. */
    public boolean isClosed() {
        return closed.get();
    }

    void requireOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the context of " + device + " is closed");
        }
    }

    /** Makes this context current on the calling thread ({@code cuCtxSetCurrent}). */
    public void makeCurrent() {
        requireOpen();
        Cu.check("cuCtxSetCurrent", CuDriver.cuCtxSetCurrent(handle));
    }

    /**
     * Lets this context access {@code peer}'s memory ({@code cuCtxEnablePeerAccess}); already enabled is fine.
     * Makes this context current.
     */
    public void enablePeerAccess(Context peer) {
        makeCurrent();
        int r = CuDriver.cuCtxEnablePeerAccess(peer.handle(), 0);
        if (r != Cu.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            Cu.check("cuCtxEnablePeerAccess", r);
        }
    }

    /** Waits for all work in this context ({@code cuCtxSynchronize}). */
    public void synchronize() {
        makeCurrent();
        Cu.check("cuCtxSynchronize", CuDriver.cuCtxSynchronize());
    }

    /** Free and total device memory. */
    public MemInfo memInfo() {
        makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment free = arena.allocate(JAVA_LONG);
            MemorySegment total = arena.allocate(JAVA_LONG);
            Cu.check("cuMemGetInfo_v2", CuDriver.cuMemGetInfo_v2(free, total));
            return new MemInfo(free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0));
        }
    }

    /**
     * Releases the primary context ({@code cuDevicePrimaryCtxRelease_v2}); the driver resets it when the last
     * reference goes. Idempotent.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Cu.check("cuDevicePrimaryCtxRelease_v2", CuDriver.cuDevicePrimaryCtxRelease_v2(device.handle()));
        }
    }

    @Override
    public String toString() {
        return "primary context of " + device;
    }
}
