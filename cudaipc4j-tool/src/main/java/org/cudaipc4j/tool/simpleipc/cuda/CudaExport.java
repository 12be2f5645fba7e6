package org.cudaipc4j.tool.simpleipc.cuda;

import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.tool.simpleipc.Backend;
import org.cudaipc4j.tool.simpleipc.BackendException;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;

/** The parent's buffer and interprocess event for one child, with their exported handles. */
public final class CudaExport implements Backend.Export {
    private final DeviceBuffer buffer;
    private final Event event;
    private final byte[] memoryHandle;
    private final byte[] eventHandle;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CudaExport(DeviceBuffer buffer, Event event) {
        this.buffer = buffer;
        this.event = event;
        this.memoryHandle = buffer.exportIpcHandle().toBytes();
        this.eventHandle = event.exportIpcHandle().toBytes();
    }

    static CudaExport create(Context context, long bytes) {
        DeviceBuffer buffer = null;
        Event event = null;
        try {
            buffer = DeviceBuffer.allocate(context, bytes);
            event = Event.create(context, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING);
            return new CudaExport(buffer, event);
        } catch (CudaException e) {
            BackendException failure = new BackendException("exporting " + bytes + " bytes on " + context.device()
                    + " failed: " + e.getMessage(), e);
            try {
                Closeables.closeAll(event, buffer);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    @Override
    public byte[] memoryHandle() {
        return memoryHandle.clone();
    }

    @Override
    public byte[] eventHandle() {
        return eventHandle.clone();
    }

    /** The exported buffer (the parent may read it after the children finish). */
    public DeviceBuffer buffer() {
        return buffer;
    }

    /** The exported interprocess event. */
    public Event event() {
        return event;
    }

    /**
     * Waits (at most {@link #SETTLE_MILLIS} ms) for the event's last record, destroys it, then frees the buffer.
     * Idempotent. The wait is bounded because a record enqueued by a child that was killed never completes, and
     * cuEventSynchronize would then block the parent forever; destroying an event with pending work is allowed.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Closeables.closeAll(this::awaitLastRecord, event, buffer);
        }
    }

    /** How long {@link #close()} waits for the event's last record to complete. */
    static final long SETTLE_MILLIS = 2000;

    private void awaitLastRecord() {
        long deadline = System.nanoTime() + SETTLE_MILLIS * 1_000_000;
        long pauseNanos = 10_000;
        while (!event.query() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(pauseNanos);
            pauseNanos = Math.min(pauseNanos * 2, 5_000_000);
        }
    }
}
