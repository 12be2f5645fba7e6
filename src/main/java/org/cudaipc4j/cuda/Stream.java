package org.cudaipc4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.driver.CuDriver;

/** A CUDA stream: work enqueued on it runs in order. */
public final class Stream implements AutoCloseable {
    /** {@code CU_STREAM_NON_BLOCKING}. */
    private static final int NON_BLOCKING = 1;

    private final Context context;
    private final MemorySegment handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Stream(Context context, MemorySegment handle) {
        this.context = context;
        this.handle = handle;
    }

    /**
     * Creates a stream in {@code context} ({@code cuStreamCreate}); {@code nonBlocking} streams do not
     * synchronise with the legacy default stream.
     */
    public static Stream create(Context context, boolean nonBlocking) {
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = Cu.pointerOut(arena);
            Cu.check("cuStreamCreate", CuDriver.cuStreamCreate(out, nonBlocking ? NON_BLOCKING : 0));
            return new Stream(context, Cu.handle(out));
        }
    }

    public Context context() {
        return context;
    }

    /** The {@code CUstream}. @throws IllegalStateException when closed */
    public MemorySegment handle() {
        if (closed.get()) {
            throw new IllegalStateException("stream is closed");
        }
        return handle;
    }

    /**
     * Makes later work on this stream wait for {@code event}'s most recent record at the time of this call
     * ({@code cuStreamWaitEvent}); a record made after this call is not waited for.
     */
    public void waitEvent(Event event) {
        Cu.check("cuStreamWaitEvent", CuDriver.cuStreamWaitEvent(handle(), event.handle(), 0));
    }

    /** Waits until all work enqueued so far has finished ({@code cuStreamSynchronize}). */
    public void synchronize() {
        Cu.check("cuStreamSynchronize", CuDriver.cuStreamSynchronize(handle()));
    }

    /** Destroys the stream ({@code cuStreamDestroy_v2}); work already enqueued still completes. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            context.makeCurrent();
            Cu.check("cuStreamDestroy_v2", CuDriver.cuStreamDestroy_v2(handle));
        }
    }
}
