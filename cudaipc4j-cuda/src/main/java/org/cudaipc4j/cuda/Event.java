package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.StreamCalls;

/**
 * A CUDA event: created here ({@link #create}) or opened from another process's handle (by the sharing package,
 * {@code org.cudaipc4j.cuda.ipc}, through {@link #adopt}). Owned by its {@link Context}. {@link #record} does not
 * make the context current (see {@link Context}); query and synchronize may be called from any thread.
 */
public final class Event extends ContextResource {
    private final MemorySegment handle;
    private final Set<EventFlag> flags;
    private final boolean opened;

    /** {@code flags} is an immutable copy: the constructor registers the event and must not fail after that. */
    private Event(Context context, MemorySegment handle, Set<EventFlag> flags, boolean opened) {
        super(context);
        this.handle = handle;
        this.flags = flags;
        this.opened = opened;
    }

    /**
     * Creates an event in {@code context} ({@code cuEventCreate}).
     *
     * @param context the context that owns the event
     * @param flags its flags
     * @return the new event
     */
    public static Event create(Context context, EventFlag... flags) {
        return create(context, flags.length == 0 ? EnumSet.noneOf(EventFlag.class) : EnumSet.of(flags[0], flags));
    }

    /**
     * Creates an event in {@code context} ({@code cuEventCreate}).
     *
     * @param context the context that owns the event
     * @param flags its flags
     * @return the new event
     * @throws IllegalArgumentException for {@link EventFlag#INTERPROCESS} without {@link EventFlag#DISABLE_TIMING}
     */
    public static Event create(Context context, Set<EventFlag> flags) {
        if (flags.contains(EventFlag.INTERPROCESS) && !flags.contains(EventFlag.DISABLE_TIMING)) {
            throw new IllegalArgumentException("an INTERPROCESS event must also be DISABLE_TIMING");
        }
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = DriverCalls.pointerOut(arena);
            StreamCalls.eventCreate(out, EventFlag.bits(flags));
            return adopt(context, DriverCalls.handle(out), flags, false);
        }
    }

    /**
     * Takes ownership of {@code handle}, an event made in {@code context} by another call than {@link #create}: an
     * interprocess event opened from another process's handle ({@code cuIpcOpenEventHandle}), as the sharing package
     * does. Closing the event, or its context, destroys this process's reference ({@code cuEventDestroy_v2}); when
     * the context no longer takes resources, the handle is destroyed at once and the exception thrown.
     *
     * @param context the context the event was made in, which owns it from here on
     * @param handle the {@code CUevent}
     * @param flags the flags it was made with
     * @param opened whether it was opened from another process's handle ({@link #isOpenedFromHandle()})
     * @return the event
     * @throws IllegalStateException when {@code context} is closed
     */
    public static Event adopt(Context context, MemorySegment handle, Set<EventFlag> flags, boolean opened) {
        try {
            Set<EventFlag> copy = Set.copyOf(flags); // before the context owns it: a bad set registers nothing
            return new Event(context, handle, copy, opened);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> StreamCalls.eventDestroy(handle), e);
            throw e;
        }
    }

    /** {@return the flags it was created with (an opened event: {@code INTERPROCESS, DISABLE_TIMING})} */
    public Set<EventFlag> flags() {
        return flags;
    }

    /** {@return true when opened from another process's handle} */
    public boolean isOpenedFromHandle() {
        return opened;
    }

    /**
     * {@return the {@code CUevent}}
     *
     * @throws IllegalStateException when closed
     */
    public MemorySegment handle() {
        requireOpen();
        return handle;
    }

    /**
     * Records the event at the current end of {@code stream} ({@code cuEventRecord}).
     *
     * @param stream the stream to record on
     */
    public void record(Stream stream) {
        StreamCalls.eventRecord(handle(), stream.handle());
    }

    /** Waits until the work before its most recent record has finished ({@code cuEventSynchronize}). */
    public void synchronize() {
        StreamCalls.eventSynchronize(handle());
    }

    /** {@return true when the work before its most recent record has finished (or it was never recorded)} */
    public boolean query() {
        int r = StreamCalls.cuEventQuery(handle());
        if (r == CudaError.NOT_READY.code()) {
            return false;
        }
        CudaFunction.cuEventQuery.check(r);
        return true;
    }

    /**
     * Milliseconds from {@code start}'s record to this event's ({@code cuEventElapsedTime_v2}, or
     * {@code cuEventElapsedTime} on drivers older than CUDA 12.8); both must have completed and record timing.
     *
     * @param start the earlier event
     * @return the time between the two records, in milliseconds
     */
    public float elapsedMillis(Event start) {
        if (flags.contains(EventFlag.DISABLE_TIMING) || start.flags.contains(EventFlag.DISABLE_TIMING)) {
            throw new IllegalStateException("elapsed time needs two events created without DISABLE_TIMING");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            int result = StreamCalls.cuEventElapsedTime_v2(out, start.handle(), handle());
            Cu.check(ElapsedTimeCall.NAME, result);
            return out.get(JAVA_FLOAT, 0);
        }
    }

    /** Destroys the event ({@code cuEventDestroy_v2}); an opened one drops this process's reference. */
    @Override
    void release() {
        context.makeCurrent();
        StreamCalls.eventDestroy(handle);
    }

    @Override
    public String toString() {
        return (opened ? "opened event" : "event") + " on " + context.device();
    }

    /** The export elapsed times are asked of in this process, for error messages. */
    private static final class ElapsedTimeCall {
        static final String NAME = org.cudaipc4j.cuda.driver.CudaLibrary.resolvedName(
                CudaFunction.cuEventElapsedTime_v2.name()).orElse(CudaFunction.cuEventElapsedTime_v2.name());
    }
}
