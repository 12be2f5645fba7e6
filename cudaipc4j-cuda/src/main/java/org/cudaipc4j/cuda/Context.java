package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DeviceCalls;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.MemoryCalls;

/**
 * A retained reference to a device's primary context, and the owner of every resource made in it (buffers,
 * streams, events, modules, pinned memory, IPC mappings, VMM and pool memory): {@link #close()} closes those still
 * open, newest first, and then releases the context, so no close order leaks a resource or makes a later
 * {@code close()} of one throw.
 *
 * <p>Threads: the driver binds the current context per OS thread. Methods of the typed layer that take or hold a
 * context make it current on the calling thread first; the hot-path calls ({@link Stream#waitEvent},
 * {@link Event#record}, {@link Kernel#launch}) do not, and run in the context current on the calling thread (the
 * one their stream belongs to: call {@link #makeCurrent()} once on each thread that uses them). Use platform
 * threads: a virtual thread may move to another OS thread between two calls. A context and its resources may be
 * used from several threads; a single resource is not safe for concurrent use unless its class says so, and every
 * {@code close()} is idempotent and may be called from any thread.
 */
public final class Context implements AutoCloseable {
    private enum State { OPEN, CLOSING, CLOSED }

    private final Device device;
    private final MemorySegment handle;
    /** Resources made in this context and still open, in creation order; guarded by itself. */
    private final LinkedHashSet<ContextResource> owned = new LinkedHashSet<>();
    private volatile State state = State.OPEN;

    private Context(Device device, MemorySegment handle) {
        this.device = device;
        this.handle = handle;
    }

    /**
     * Retains {@code device}'s primary context ({@code cuDevicePrimaryCtxRetain}); {@link #close()} releases it.
     *
     * @param device the device
     * @return the retained context
     */
    public static Context retainPrimary(Device device) {
        Cuda.init();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = DriverCalls.pointerOut(arena);
            DeviceCalls.devicePrimaryCtxRetain(out, device.handle());
            return new Context(device, DriverCalls.handle(out));
        }
    }

    /** {@return the device of this context} */
    public Device device() {
        return device;
    }

    /** {@return the {@code CUcontext}} */
    public MemorySegment handle() {
        requireUsable();
        return handle;
    }

    /** {@return true once {@link #close()} has run} */
    public boolean isClosed() {
        return state != State.OPEN;
    }

    /** While closing, what it owns may still make it current to release themselves. */
    private void requireUsable() {
        if (state == State.CLOSED) {
            throw new IllegalStateException("the " + this + " is closed");
        }
    }

    /** Makes this context current on the calling thread ({@code cuCtxSetCurrent}). */
    public void makeCurrent() {
        requireUsable();
        DeviceCalls.ctxSetCurrent(handle);
    }

    /** Registers a resource made in this context. */
    void adopt(ContextResource resource) {
        synchronized (owned) {
            if (state != State.OPEN) {
                throw new IllegalStateException("the " + this + " is closed; cannot make " + resource + " in it");
            }
            owned.add(resource);
        }
    }

    /** Unregisters a resource that closed itself. */
    void forget(ContextResource resource) {
        synchronized (owned) {
            owned.remove(resource);
        }
    }

    /** {@return how many resources made in this context are still open} */
    public int openResources() {
        synchronized (owned) {
            return owned.size();
        }
    }

    /**
     * Lets this context access {@code peer}'s memory ({@code cuCtxEnablePeerAccess}); already enabled is fine.
     * Makes this context current.
     *
     * @param peer the context whose memory becomes reachable
     */
    public void enablePeerAccess(Context peer) {
        makeCurrent();
        int r = DeviceCalls.cuCtxEnablePeerAccess(peer.handle(), 0);
        if (r != CudaError.PEER_ACCESS_ALREADY_ENABLED.code()) {
            CudaFunction.cuCtxEnablePeerAccess.check(r);
        }
    }

    /** Waits for all work in this context ({@code cuCtxSynchronize}). */
    public void synchronize() {
        makeCurrent();
        DeviceCalls.ctxSynchronize();
    }

    /** {@return free and total device memory} */
    public MemInfo memInfo() {
        makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment free = arena.allocate(JAVA_LONG);
            MemorySegment total = arena.allocate(JAVA_LONG);
            MemoryCalls.memGetInfo(free, total);
            return new MemInfo(free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0));
        }
    }

    /**
     * Closes every resource still open in this context (newest first), then releases the primary context
     * ({@code cuDevicePrimaryCtxRelease_v2}); the driver resets it when the last reference goes. Every resource is
     * tried even when one fails; the first failure is thrown after the release, later ones suppressed. Idempotent.
     */
    @Override
    public void close() {
        close(true);
    }

    /**
     * As {@link #close()}, except that this reference to the primary context is left to the process's end, whose
     * teardown then destroys the context: for a process that exits right after, whose exit then takes longer by
     * less than the release would have taken. Whichever of the two closes runs first decides; later calls of
     * either do nothing.
     */
    public void closeBeforeExit() {
        close(false);
    }

    private void close(boolean release) {
        List<AutoCloseable> steps = new ArrayList<>();
        synchronized (owned) {
            if (state != State.OPEN) {
                return;
            }
            state = State.CLOSING;
            steps.addAll(owned.reversed()); // newest first
        }
        steps.add(() -> {
            synchronized (owned) {
                owned.clear();
                state = State.CLOSED;
            }
        });
        if (release) {
            steps.add(() -> DeviceCalls.devicePrimaryCtxRelease(device.handle()));
        }
        Closing.closeAll(steps.toArray(AutoCloseable[]::new));
    }

    @Override
    public String toString() {
        return "primary context of " + device;
    }
}
