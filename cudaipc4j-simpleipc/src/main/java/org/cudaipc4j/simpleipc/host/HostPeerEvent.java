package org.cudaipc4j.simpleipc.host;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;

/** A simulated interprocess event as one process sees it. */
final class HostPeerEvent implements Backend.PeerEvent {
    private final EventSegment event;
    private final Consumer<HostPeerEvent> release;
    private final AtomicBoolean closed = new AtomicBoolean();

    HostPeerEvent(EventSegment event, Consumer<HostPeerEvent> release) {
        this.event = event;
        this.release = release;
    }

    /** The event's shared state, for work enqueued by {@code what}. */
    EventSegment event(String what) {
        if (closed.get()) {
            throw new BackendException(what + " failed: event " + event.name() + " is closed");
        }
        return event;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release.accept(this);
        }
    }

    @Override
    public String toString() {
        return "host event " + event.name();
    }
}
