package org.cudaipc4j.simpleipc.host;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.IdleStrategy;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;

/** A process's view of one simulated device: a {@link HostStream} plus what was opened through it. */
final class HostAttachment implements Backend.Attachment {
    private final HostBackend backend;
    private final int device;
    private final long timeoutNanos;
    private final HostStream stream;
    /** The highest progress marker the stream has passed; -1 before the first. */
    private final AtomicLong passedMarker = new AtomicLong(-1);
    private long nextMarker;
    private final Arena stagingArena = Arena.ofShared();
    // Guarded by this. One mapping per segment, shared by every view opened from it (CUDA counts references).
    private final Map<String, Mapping> mappings = new HashMap<>();
    private final Map<AutoCloseable, Mapping> opened = new LinkedHashMap<>();
    private MemorySegment staging = MemorySegment.NULL;
    private boolean closed;

    HostAttachment(HostBackend backend, int device, long timeoutNanos) {
        this.backend = backend;
        this.device = device;
        this.timeoutNanos = timeoutNanos;
        this.stream = new HostStream("cudaipc4j-host-stream-d" + device);
    }

    /**
     * As in CUDA, the handle's device need not be one this process can see. A {@code MEMORY_FD} handle's memory is the
     * file descriptor that came with it (the caller keeps owning it).
     */
    @Override
    public Backend.PeerBuffer openBuffer(byte[] memoryHandle, int[] fds, long bytes) {
        HostHandle h = HostHandle.decode(memoryHandle);
        if (h.kind() == HostHandle.Kind.EVENT) {
            throw new BackendException("invalid host IPC handle: it is an event handle where a memory handle was"
                    + " expected");
        }
        if (fds.length != (h.kind() == HostHandle.Kind.MEMORY_FD ? 1 : 0)) {
            throw new BackendException("the memory handle of " + h.segmentName() + " came with " + fds.length
                    + " file descriptors, " + (h.kind() == HostHandle.Kind.MEMORY_FD ? 1 : 0) + " expected");
        }
        long self = ProcessHandle.current().pid();
        if (h.exporterPid() == self) {
            throw new BackendException("cannot open memory handle of " + h.segmentName()
                    + " in the process that exported it (pid " + self
                    + "): CUDA refuses this too (CUDA_ERROR_INVALID_CONTEXT)");
        }
        if (bytes < 1 || bytes > h.size()) {
            throw new BackendException("cannot open " + bytes + " bytes of " + h.segmentName()
                    + ": the exported buffer has " + h.size() + " bytes");
        }
        synchronized (this) {
            checkOpen("openBuffer");
            Mapping mapping = map(h, fds);
            HostPeerBuffer buffer = new HostPeerBuffer(h.segmentName(), mapping.segment.memory().asSlice(0, bytes),
                    this::release);
            opened.put(buffer, mapping);
            return buffer;
        }
    }

    @Override
    public Backend.PeerEvent openEvent(byte[] eventHandle) {
        HostHandle h = HostHandle.decode(eventHandle, HostHandle.Kind.EVENT);
        synchronized (this) {
            checkOpen("openEvent");
            Mapping mapping = map(h, new int[0]);
            HostPeerEvent event;
            try {
                event = new HostPeerEvent(EventSegment.attach(mapping.segment.memory(), h.segmentName()), this::release);
            } catch (RuntimeException e) {
                unmap(mapping, e);
                throw e;
            }
            opened.put(event, mapping);
            return event;
        }
    }

    @Override
    public void streamWait(Backend.PeerEvent event) {
        EventSegment e = own(event).event("streamWait");
        long ticket = e.lastTicket(); // the most recent record at the time of this call
        if (ticket <= e.completed()) {
            stream.checkUsable("streamWait");
            return;
        }
        stream.enqueue("streamWait", () -> () -> e.await(ticket, timeoutNanos, stream::isClosed));
    }

    private MemorySegment counterMemory;
    private long[] counterOffsets;

    @Override
    public void useCounters(MemorySegment shared, long[] offsets) {
        this.counterMemory = shared;
        this.counterOffsets = offsets.clone();
    }

    /** As a device polls a word of host memory: until {@code (int) (word - value) >= 0}, closed, or timed out. */
    @Override
    public void waitCounter(int index, int value) {
        MemorySegment m = counterMemory;
        long offset = counterOffsets[index];
        stream.enqueue("waitCounter", () -> () -> {
            Deadline deadline = HostBackend.deadline(timeoutNanos);
            IdleStrategy idle = IdleStrategy.backoff(0, 0, 1_000, 1_000_000);
            while ((int) ((int) COUNTER.getAcquire(m, offset) - value) < 0) {
                if (stream.isClosed()) {
                    return;
                }
                if (deadline.hasPassed()) {
                    throw new BackendException("counter " + index + " did not reach " + value + " within "
                            + HostBackend.seconds(timeoutNanos));
                }
                idle.idle();
            }
        });
    }

    @Override
    public void writeCounter(int index, int value) {
        MemorySegment m = counterMemory;
        long offset = counterOffsets[index];
        stream.enqueue("writeCounter", () -> () -> COUNTER.setRelease(m, offset, value));
    }

    private static final java.lang.invoke.VarHandle COUNTER = java.lang.foreign.ValueLayout.JAVA_INT.varHandle();

    @Override
    public void fill(Backend.PeerBuffer buffer, byte value) {
        MemorySegment m = own(buffer).memory("fill");
        stream.enqueue("fill", () -> () -> m.fill(value));
    }

    @Override
    public void record(Backend.PeerEvent event) {
        EventSegment e = own(event).event("record");
        stream.enqueue("record", () -> {
            long ticket = e.takeTicket();
            return () -> e.complete(ticket);
        });
    }

    @Override
    public MemorySegment copyToHost(Backend.PeerBuffer buffer) {
        HostPeerBuffer b = own(buffer);
        MemorySegment source = b.memory("copyToHost");
        MemorySegment target;
        synchronized (this) {
            checkOpen("copyToHost");
            // Grows to the largest buffer copied; earlier staging is freed with the attachment (a timed-out copy
            // may still write into it).
            if (staging.byteSize() < source.byteSize()) {
                staging = stagingArena.allocate(source.byteSize(), 64);
            }
            target = staging.asSlice(0, source.byteSize());
        }
        stream.enqueue("copyToHost", () -> () -> MemorySegment.copy(source, 0, target, 0, source.byteSize()));
        // Twice the wait timeout: a wait queued ahead reports its own, clearer, timeout first.
        stream.synchronize("copyToHost", 2 * timeoutNanos);
        return target.asReadOnly();
    }

    /** Whether a task of this attachment's stream failed, reported or not. */
    boolean streamFailed() {
        return stream.hasFailed();
    }

    @Override
    public long mark() {
        long marker;
        synchronized (this) {
            checkOpen("mark");
            marker = nextMarker++;
        }
        stream.enqueue("mark", () -> () -> passedMarker.accumulateAndGet(marker, Math::max));
        return marker;
    }

    @Override
    public boolean reached(long marker) {
        synchronized (this) {
            if (marker < 0 || marker >= nextMarker) {
                throw new IllegalArgumentException("no progress marker " + marker + " (" + nextMarker + " recorded)");
            }
        }
        stream.checkUsable("reached");
        return passedMarker.get() >= marker;
    }

    /** Closes every opened view; each waits for the queued work that could still use it. */
    @Override
    public void releaseOpened() {
        synchronized (this) {
            checkOpen("releaseOpened");
        }
        BackendException error = closeOpenedViews(null);
        if (error != null) {
            throw error;
        }
    }

    /** Closes every opened view, newest first; returns {@code error} with any failures chained to it. */
    private BackendException closeOpenedViews(BackendException error) {
        List<AutoCloseable> toClose;
        synchronized (this) {
            toClose = new ArrayList<>(opened.keySet()).reversed();
        }
        for (AutoCloseable c : toClose) {
            try {
                c.close();
            } catch (Exception e) {
                error = HostBackend.chain(error, "closing " + c, e);
            }
        }
        return error;
    }

    /**
     * Stops the stream first (queued work finishes, a pending wait ends), then unmaps what was opened: unmapping
     * first could pull memory from under a queued fill or copy.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        BackendException error = null;
        try {
            stream.close(2 * timeoutNanos);
        } catch (BackendException e) {
            error = e;
        }
        error = closeOpenedViews(error);
        try {
            stagingArena.close();
        } catch (RuntimeException e) {
            error = HostBackend.chain(error, "freeing the staging memory", e);
        }
        backend.forget(this);
        if (error != null) {
            throw error;
        }
    }

    /** Unmaps an opened buffer or event, once no queued work can use it any more and no other view shares it. */
    private void release(AutoCloseable view) {
        boolean drained = stream.drain("close " + view, timeoutNanos);
        BackendException error = drained ? null : new BackendException("closed " + view
                + " while work using it was still queued after " + HostBackend.seconds(timeoutNanos));
        synchronized (this) {
            Mapping mapping = opened.remove(view);
            if (--mapping.references == 0) {
                mappings.remove(mapping.segment.name());
                try {
                    mapping.segment.close();
                } catch (RuntimeException e) {
                    error = HostBackend.chain(error, "unmapping " + mapping.segment.name(), e);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    private static final class Mapping {
        final HostMemory segment;
        int references;

        Mapping(HostMemory segment) {
            this.segment = segment;
        }
    }

    /** The memory a handle names, mapped once and shared by every view opened from it. */
    private Mapping map(HostHandle h, int[] fds) {
        Mapping mapping = mappings.get(h.segmentName());
        if (mapping == null) {
            mapping = new Mapping(h.kind() == HostHandle.Kind.MEMORY_FD ? HostMemory.map(h.segmentName(), fds[0],
                    h.size()) : HostMemory.of(open(h)));
            mappings.put(h.segmentName(), mapping);
        } else if (mapping.segment.size() != h.size()) {
            throw sizeMismatch(h, mapping.segment.size());
        }
        mapping.references++;
        return mapping;
    }

    /** Undoes {@link #map} after a failure, attaching any cleanup error to it. */
    private void unmap(Mapping mapping, Throwable primary) {
        if (--mapping.references == 0) {
            mappings.remove(mapping.segment.name());
            closeQuietly(mapping.segment, primary);
        }
    }

    private SharedSegment open(HostHandle h) {
        String what = h.kind() == HostHandle.Kind.MEMORY ? "buffer" : "event";
        SharedSegment segment;
        try {
            segment = SharedSegment.open(h.segmentName());
        } catch (RuntimeException e) {
            throw new BackendException("cannot open the " + what + " of simulated device " + h.device()
                    + " exported by pid " + h.exporterPid() + ": " + e.getMessage(), e);
        }
        if (segment.size() != h.size()) {
            BackendException e = sizeMismatch(h, segment.size());
            closeQuietly(segment, e);
            throw e;
        }
        return segment;
    }

    private static BackendException sizeMismatch(HostHandle h, long size) {
        return new BackendException("segment " + h.segmentName() + " is " + size
                + " bytes but its handle says " + h.size());
    }

    private static void closeQuietly(AutoCloseable segment, Throwable primary) {
        try {
            segment.close();
        } catch (Exception e) {
            primary.addSuppressed(e);
        }
    }

    private void checkOpen(String what) {
        if (closed) {
            throw new BackendException(what + " failed: the attachment to simulated device " + device + " is closed");
        }
    }

    private static HostPeerBuffer own(Backend.PeerBuffer buffer) {
        if (buffer instanceof HostPeerBuffer b) {
            return b;
        }
        throw new IllegalArgumentException("not a host backend buffer: " + buffer);
    }

    private static HostPeerEvent own(Backend.PeerEvent event) {
        if (event instanceof HostPeerEvent e) {
            return e;
        }
        throw new IllegalArgumentException("not a host backend event: " + event);
    }

    @Override
    public String toString() {
        return "host attachment to simulated device " + device;
    }
}
