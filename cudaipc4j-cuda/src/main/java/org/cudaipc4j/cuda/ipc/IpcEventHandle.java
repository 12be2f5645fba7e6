package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.IpcCalls;
import org.cudaipc4j.cuda.driver.StreamCalls;

/**
 * A {@code CUipcEventHandle}: an immutable 64-byte value naming an interprocess event of another process. Thread-safe.
 */
public final class IpcEventHandle {
    /** Its size in bytes. */
    public static final int SIZE = CuSymbols.IPC_HANDLE_SIZE;
    private static final StructLayout LAYOUT = CuSymbols.CU_IPC_EVENT_HANDLE;
    /** The flags of every event opened from a handle, one immutable set (the event keeps it as it is). */
    private static final Set<EventFlag> OPENED_FLAGS = Set.of(EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING);

    private final byte[] bytes;
    /** The bytes' hash, made once: a reader looks a handle up several times per open. */
    private final int hash;

    private IpcEventHandle(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /**
     * {@return the handle held in {@code bytes}}
     *
     * @param bytes the handle's 64 bytes
     * @throws IllegalArgumentException unless {@code bytes} holds exactly 64 bytes
     */
    public static IpcEventHandle fromBytes(byte[] bytes) {
        return new IpcEventHandle(Checks.handleBytes(bytes, "event"));
    }

    /**
     * {@return the handle written as {@code hex}}
     *
     * @param hex the handle as {@link #hex()} writes it
     * @throws IllegalArgumentException unless {@code hex} is 128 hex digits
     */
    public static IpcEventHandle fromHex(String hex) {
        return new IpcEventHandle(Checks.handleHex(hex, "event"));
    }

    /** {@return a copy of the 64 bytes} */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** {@return the 64 bytes as 128 lower-case hex digits} */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * The handle another process opens {@code event} with ({@code cuIpcGetEventHandle}).
     *
     * @param event an event of this process
     * @return the handle
     * @throws IllegalStateException unless created with {@code INTERPROCESS} and {@code DISABLE_TIMING}, or once
     *                               closed
     */
    public static IpcEventHandle export(Event event) {
        Set<EventFlag> flags = event.flags();
        if (!flags.contains(EventFlag.INTERPROCESS) || !flags.contains(EventFlag.DISABLE_TIMING)) {
            throw new IllegalStateException(
                    "only an event created with INTERPROCESS and DISABLE_TIMING can be exported; this one has "
                            + flags);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(LAYOUT);
            IpcCalls.ipcGetEventHandle(out, event.handle());
            return fromBytes(out.toArray(JAVA_BYTE));
        }
    }

    /**
     * Opens the event in {@code context} ({@code cuIpcOpenEventHandle}); closing the returned event destroys
     * this process's reference ({@code cuEventDestroy_v2}).
     *
     * @param context the context to open it in
     * @return the event
     */
    public Event open(Context context) {
        MemorySegment out = Checks.scratchOut();
        CudaFunction.cuIpcOpenEventHandle.check(openCall(context, bytes, out));
        return Event.adopt(context, DriverCalls.handle(out), OPENED_FLAGS, true);
    }

    /**
     * Makes {@code stream} wait on the event: opened in {@code context} ({@code cuIpcOpenEventHandle}), waited on
     * ({@code cuStreamWaitEvent}) and destroyed ({@code cuEventDestroy_v2}) at once, the wait left queued on the
     * stream. No {@link Event} is made for this reference, which never leaves the call: a reader makes this wait for
     * each share it opens, tens of thousands for a model's state dict.
     *
     * @param context the context to open it in, the stream's
     * @param stream the stream whose later work waits
     * @param stamps where {@link System#nanoTime()} is written once the event is open (index 0) and once the wait is
     *               queued (index 1), for a reader's timing; or null
     * @throws org.cudaipc4j.cuda.CudaException when the driver refuses a step (a producer gone, another device)
     * @throws IllegalStateException when the stream or the context is closed
     * @throws IllegalArgumentException when {@code stamps} has fewer than 2 elements
     */
    public void queueWait(Context context, Stream stream, long[] stamps) {
        if (stamps != null && stamps.length < 2) {
            throw new IllegalArgumentException("the stamps need 2 elements, got " + stamps.length);
        }
        MemorySegment streamHandle = stream.handle();
        MemorySegment out = Checks.scratchOut();
        CudaFunction.cuIpcOpenEventHandle.check(openCall(context, bytes, out));
        MemorySegment event = DriverCalls.handle(out);
        try {
            if (stamps != null) {
                stamps[0] = System.nanoTime();
            }
            StreamCalls.streamWaitEvent(streamHandle, event, 0);
            if (stamps != null) {
                stamps[1] = System.nanoTime();
            }
        } catch (Throwable t) { // an Error too (a handle's first linking): the event never outlives the call
            Closing.closeAfter(() -> StreamCalls.eventDestroy(event), t);
            throw t;
        }
        StreamCalls.eventDestroy(event); // the context is current still: the open made it so
    }

    /**
     * An open's call: {@code context} made current, {@code cuIpcOpenEventHandle}
     * of {@code bytes} into {@code out}.
     *
     * @return the driver's result
     */
    static int openCall(Context context, byte[] bytes, MemorySegment out) {
        context.makeCurrent();
        return IpcCalls.cuIpcOpenEventHandle(out, bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IpcEventHandle h && h.hash == hash && Arrays.equals(h.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "IpcEventHandle[" + hex() + "]";
    }
}
