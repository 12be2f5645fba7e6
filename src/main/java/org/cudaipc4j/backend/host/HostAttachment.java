package org.cudaipc4j.backend.host;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cudaipc4j.backend.Backend;
import org.cudaipc4j.backend.BackendException;
import org.cudaipc4j.coord.SharedSegment;

/** A process's view of one simulated device: a {@link HostStream} plus what was opened through it. */
final class HostAttachment implements Backend.Attachment {
    private final HostBackend backend;
    private final int device;
    private final long timeoutNanos;
    private final HostStream stream;
    private final Arena stagingArena = Arena.ofShared();
    // Guarded by this.
    private final Map<AutoCloseable, SharedSegment> opened = new LinkedHashMap<>();
    private final Set<String> openBufferNames = new HashSet<>();
    private MemorySegment staging = MemorySegment.NULL;
    private boolean closed;

    HostAttachment(HostBackend backend, int device, long timeoutNanos) {
        this.backend = backend;
        this.device = device;
        this.timeoutNanos = timeoutNanos;
        this.stream = new HostStream("cudaipc4j-host-stream-d" + device);
    }

    @Override
    public Backend.PeerBuffer openBuffer(byte[] memoryHandle, long bytes) {
        HostHandle h = HostHandle.decode(memoryHandle, HostHandle.Kind.MEMORY);
        backend.checkHandleDevice(h);
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
            if (!openBufferNames.add(h.segmentName())) {
                throw new BackendException("memory handle of " + h.segmentName()
                        + " is already open in this attachment (a handle maps once per device); close it first");
            }
            SharedSegment segment;
            try {
                segment = open(h);
            } catch (RuntimeException e) {
                openBufferNames.remove(h.segmentName());
                throw e;
            }
            HostPeerBuffer buffer = new HostPeerBuffer(h.segmentName(), segment.memory().asSlice(0, bytes),
                    this::release);
            opened.put(buffer, segment);
            return buffer;
        }
    }

    @Override
    public Backend.PeerEvent openEvent(byte[] eventHandle) {
        HostHandle h = HostHandle.decode(eventHandle, HostHandle.Kind.EVENT);
        backend.checkHandleDevice(h);
        synchronized (this) {
            checkOpen("openEvent");
            SharedSegment segment = open(h);
            EventSegment event;
            try {
                event = EventSegment.attach(segment.memory(), segment.name());
            } catch (RuntimeException e) {
                closeQuietly(segment, e);
                throw e;
            }
            HostPeerEvent peer = new HostPeerEvent(event, this::release);
            opened.put(peer, segment);
            return peer;
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

    @Override
    public void close() {
        List<AutoCloseable> toClose;
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

    /** Unmaps an opened buffer or event once no queued work can use it any more. */
    private void release(AutoCloseable view) {
        boolean drained = stream.drain("close " + view, timeoutNanos);
        SharedSegment segment;
        synchronized (this) {
            segment = opened.remove(view);
            if (view instanceof HostPeerBuffer b) {
                openBufferNames.remove(b.name());
            }
        }
        segment.close();
        if (!drained) {
            throw new BackendException("closed " + view + " while work using it was still queued after "
                    + HostBackend.seconds(timeoutNanos));
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
            BackendException e = new BackendException("segment " + h.segmentName() + " is " + segment.size()
                    + " bytes but its handle says " + h.size());
            closeQuietly(segment, e);
            throw e;
        }
        return segment;
    }

    private static void closeQuietly(SharedSegment segment, Throwable primary) {
        try {
            segment.close();
        } catch (RuntimeException e) {
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
