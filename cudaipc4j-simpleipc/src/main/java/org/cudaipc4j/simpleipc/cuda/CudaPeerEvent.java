package org.cudaipc4j.simpleipc.cuda;

import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.simpleipc.backend.Backend;

/** A sibling's interprocess event opened by a {@link CudaAttachment}. */
public final class CudaPeerEvent implements Backend.PeerEvent {
    private final CudaAttachment attachment;
    private final Event event;

    CudaPeerEvent(CudaAttachment attachment, Event event) {
        this.attachment = attachment;
        this.event = event;
    }

    CudaAttachment attachment() {
        return attachment;
    }

    public Event event() {
        return event;
    }

    /** Destroys this process's reference to the event. Idempotent. */
    @Override
    public void close() {
        event.close();
    }

    @Override
    public String toString() {
        return "peer event";
    }
}
