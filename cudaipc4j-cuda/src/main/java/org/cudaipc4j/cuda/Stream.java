package org.cudaipc4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.StreamCalls;

/**
 * A CUDA stream: work enqueued on it runs in order. Owned by its {@link Context}. Enqueueing calls do not make the
 * context current (see {@link Context} for the thread rules); one thread should enqueue on a stream at a time.
 */
public final class Stream extends ContextResource {
    /** {@code CU_STREAM_NON_BLOCKING}. */
    private static final int NON_BLOCKING = 1;
    /** {@code CU_STREAM_WAIT_VALUE_GEQ}: wait until {@code (int32_t)(*addr - value) >= 0}. */
    private static final int WAIT_VALUE_GEQ = 0;
    /** {@code CU_STREAM_WAIT_VALUE_EQ}. */
    private static final int WAIT_VALUE_EQ = 1;

    private final MemorySegment handle;

    private Stream(Context context, MemorySegment handle) {
        super(context);
        this.handle = handle;
    }

    /**
     * Creates a stream in {@code context} ({@code cuStreamCreate}); {@code nonBlocking} streams do not
     * synchronise with the legacy default stream.
     *
     * @param context the context that owns the stream
     * @param nonBlocking whether it runs independently of the legacy default stream
     * @return the new stream
     */
    public static Stream create(Context context, boolean nonBlocking) {
        context.makeCurrent();
        MemorySegment handle;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = DriverCalls.pointerOut(arena);
            StreamCalls.streamCreate(out, nonBlocking ? NON_BLOCKING : 0);
            handle = DriverCalls.handle(out);
        }
        try {
            return new Stream(context, handle);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> StreamCalls.streamDestroy(handle), e);
            throw e;
        }
    }

    /**
     * {@return the {@code CUstream}}
     *
     * @throws IllegalStateException when closed
     */
    public MemorySegment handle() {
        requireOpen();
        return handle;
    }

    /**
     * Makes later work on this stream wait for {@code event}'s most recent record at the time of this call
     * ({@code cuStreamWaitEvent}); a record made after this call is not waited for.
     *
     * @param event the event to wait for
     */
    public void waitEvent(Event event) {
        StreamCalls.streamWaitEvent(handle(), event.handle(), 0);
    }

    /**
     * Makes later work on this stream wait until the 32-bit word at device address {@code address} is at least
     * {@code value} (compared as {@code (int)(word - value) >= 0}, so counters may wrap), or exactly
     * {@code value} when {@code exactly} ({@code cuStreamWaitValue32_v2}). Any process that maps the word can
     * release the wait by writing it: a way to stop a stream that waits for work which will never come. The word
     * must be device memory or host memory mapped for the device.
     *
     * @param address the device address of the word
     * @param value the value to wait for
     * @param exactly whether to wait for equality instead of at least
     */
    public void waitValue32(long address, int value, boolean exactly) {
        StreamCalls.streamWaitValue32(handle(), address, value,
                exactly ? WAIT_VALUE_EQ : WAIT_VALUE_GEQ);
    }

    /**
     * Enqueues writing {@code value} to the 32-bit word at device address {@code address} ({@code
     * cuStreamWriteValue32_v2}).
     *
     * @param address the device address of the word
     * @param value the value to write
     */
    public void writeValue32(long address, int value) {
        StreamCalls.streamWriteValue32(handle(), address, value, 0);
    }

    /**
     * {@return true when all work enqueued so far has finished, without waiting ({@code cuStreamQuery}): for loops that
     * must also watch something else while they wait, such as a communicator's asynchronous error}
     */
    public boolean query() {
        int r = StreamCalls.cuStreamQuery(handle());
        if (r == CudaError.NOT_READY.code()) {
            return false;
        }
        CudaFunction.cuStreamQuery.check(r);
        return true;
    }

    /** Waits until all work enqueued so far has finished ({@code cuStreamSynchronize}). */
    public void synchronize() {
        StreamCalls.streamSynchronize(handle());
    }

    /** Destroys the stream ({@code cuStreamDestroy_v2}); work already enqueued still completes. */
    @Override
    void release() {
        context.makeCurrent();
        StreamCalls.streamDestroy(handle);
    }

    @Override
    public String toString() {
        return "stream on " + context.device();
    }
}
