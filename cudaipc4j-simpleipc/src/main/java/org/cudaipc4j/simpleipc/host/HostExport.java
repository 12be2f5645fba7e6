package org.cudaipc4j.simpleipc.host;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.simpleipc.backend.IpcMode;

/**
 * A simulated device buffer and interprocess event, owned by the exporting process. The buffer is a named segment
 * (legacy handles) or, for {@code --ipc vmm|pool}, an anonymous memory file whose descriptor travels beside the handle.
 */
final class HostExport implements Backend.Export {
    private static final AtomicLong NEXT_FILE = new AtomicLong();
    private final HostBackend backend;
    private final int device;
    private final long timeoutNanos;
    private final HostMemory memory;
    /** The memory file's descriptor ({@code --ipc vmm|pool}), else null. */
    private final OwnedFd memoryFd;
    private final SharedSegment eventMemory;
    private final EventSegment event;
    private final byte[] memoryHandle;
    private final byte[] eventHandle;
    private final HostPeerBuffer ownBuffer;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HostExport(HostBackend backend, int device, long timeoutNanos, HostMemory memory, OwnedFd memoryFd,
            SharedSegment eventMemory) {
        this.backend = backend;
        this.device = device;
        this.timeoutNanos = timeoutNanos;
        this.memory = memory;
        this.memoryFd = memoryFd;
        this.eventMemory = eventMemory;
        this.event = EventSegment.initialize(eventMemory.memory(), eventMemory.name());
        long pid = ProcessHandle.current().pid();
        this.memoryHandle = new HostHandle(memoryFd == null ? HostHandle.Kind.MEMORY : HostHandle.Kind.MEMORY_FD,
                device, pid, memory.size(), memory.name()).encode();
        this.eventHandle = new HostHandle(HostHandle.Kind.EVENT, device, pid, eventMemory.size(), eventMemory.name())
                .encode();
        this.ownBuffer = new HostPeerBuffer(memory.name(), memory.memory(), b -> {});
    }

    /** Creates both segments; on failure frees what was made and reports why in one line. */
    static HostExport create(HostBackend backend, int device, long bytes, long timeoutNanos, IpcMode mode) {
        HostMemory memory = null;
        OwnedFd[] fd = new OwnedFd[1];
        SharedSegment eventMemory = null;
        try {
            memory = mode == IpcMode.LEGACY ? HostMemory.of(SharedSegment.create("mem" + device, bytes))
                    : HostMemory.create("cudaipc4j-memfd-" + ProcessHandle.current().pid() + "-"
                            + NEXT_FILE.incrementAndGet(), bytes, fd);
            eventMemory = SharedSegment.create("evt" + device, EventSegment.SIZE);
            return new HostExport(backend, device, timeoutNanos, memory, fd[0], eventMemory);
        } catch (RuntimeException e) {
            BackendException error = new BackendException("cannot export " + HostBackend.size(bytes)
                    + " on simulated device " + device + ": " + e.getMessage(), e);
            if (fd[0] != null) {
                fd[0].close();
            }
            for (AutoCloseable s : new AutoCloseable[] {eventMemory, memory}) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (Exception c) {
                        error.addSuppressed(c);
                    }
                }
            }
            throw error;
        }
    }

    @Override
    public byte[] memoryHandle() {
        return memoryHandle.clone();
    }

    @Override
    public int[] memoryFds() {
        return memoryFd == null ? new int[0] : new int[] {memoryFd.value()};
    }

    @Override
    public byte[] eventHandle() {
        return eventHandle.clone();
    }

    /**
     * The exporter's own view of its buffer (as a CUDA exporter uses its device pointer), usable with any
     * attachment of this process; owned by this export, so closing the view frees nothing.
     */
    Backend.PeerBuffer buffer() {
        return ownBuffer;
    }

    /** The event's shared state. */
    EventSegment event() {
        return event;
    }

    /**
     * Waits (up to the backend's wait timeout) for the event's last record to complete, then unlinks both
     * segments. A record whose process has exited will never complete; the wait ends there without error.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        BackendException error = null;
        try {
            event.await(event.lastTicket(), timeoutNanos, () -> false);
        } catch (EventSegment.RecorderExitedException e) {
            // Its recorder died; nothing will ever complete it.
        } catch (BackendException e) {
            error = new BackendException("closing the export on simulated device " + device + ": " + e.getMessage(), e);
        }
        ownBuffer.close();
        if (memoryFd != null) {
            memoryFd.close();
        }
        try {
            eventMemory.close();
        } catch (RuntimeException e) {
            error = HostBackend.chain(error, "freeing segment " + eventMemory.name(), e);
        }
        try {
            memory.close();
        } catch (RuntimeException e) {
            error = HostBackend.chain(error, "freeing " + memory.name(), e);
        }
        backend.forget(this);
        if (error != null) {
            throw error;
        }
    }

    @Override
    public String toString() {
        return "host export of " + HostBackend.size(memory.size()) + " on simulated device " + device;
    }
}
