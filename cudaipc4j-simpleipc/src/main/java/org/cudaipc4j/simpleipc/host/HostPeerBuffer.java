package org.cudaipc4j.simpleipc.host;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;

/** A simulated device buffer as one process sees it: a view of the buffer's shared segment. */
final class HostPeerBuffer implements Backend.PeerBuffer {
    private final String name;
    private final MemorySegment memory;
    private final Consumer<HostPeerBuffer> release;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param release runs once on close: unmaps an opened buffer; nothing for the exporter's own view
     */
    HostPeerBuffer(String name, MemorySegment memory, Consumer<HostPeerBuffer> release) {
        this.name = name;
        this.memory = memory;
        this.release = release;
    }

    String name() {
        return name;
    }

    @Override
    public long bytes() {
        return memory.byteSize();
    }

    /** The mapped bytes, for work enqueued by {@code what}. */
    MemorySegment memory(String what) {
        if (closed.get()) {
            throw new BackendException(what + " failed: buffer " + name + " is closed");
        }
        return memory;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release.accept(this);
        }
    }

    @Override
    public String toString() {
        return "host buffer " + name + " (" + bytes() + " bytes)";
    }
}
