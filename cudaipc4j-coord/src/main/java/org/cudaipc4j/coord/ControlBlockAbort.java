package org.cudaipc4j.coord;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.cudaipc4j.coord.ControlBlock.MAX_REASON_BYTES;
import static org.cudaipc4j.coord.ControlBlockLayout.ABORT_REASON_LENGTH;
import static org.cudaipc4j.coord.ControlBlockLayout.ABORT_REASON_OFFSET;
import static org.cudaipc4j.coord.ControlBlockLayout.ABORT_REASON_READY;
import static org.cudaipc4j.coord.ControlBlockLayout.ABORT_WORD;
import static org.cudaipc4j.coord.ControlBlockLayout.BARRIER_SENSE_OFFSET;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.cudaipc4j.base.LibcFutex;
import org.cudaipc4j.coord.ControlBlock.Abort;

/**
 * A control block's abort: the abort word claimed by compare-and-set (the first abort wins), its reason published
 * after it, the wake-up of processes asleep in a barrier, and this process's abort listeners. Thread-safe: the
 * shared words are atomic and the listeners are guarded by their list.
 */
final class ControlBlockAbort {
    private final MemorySegment mem;
    /** What this process runs when the group is aborted through {@link #abort}; guarded by itself. */
    private final List<Runnable> abortListeners = new ArrayList<>();

    ControlBlockAbort(MemorySegment mem) {
        this.mem = mem;
    }

    /** Claims the abort word for {@code process} (already checked), records the reason, wakes sleepers. */
    void abort(int process, String reason) {
        if (!ABORT_WORD.compareAndSet(mem, 0L, 0, process + 2)) {
            runAbortListeners();
            return;
        }
        byte[] bytes = truncateUtf8(reason == null ? "" : reason.replace('\n', ' '), MAX_REASON_BYTES);
        MemorySegment.copy(bytes, 0, mem, JAVA_BYTE, ABORT_REASON_OFFSET, bytes.length);
        ABORT_REASON_LENGTH.set(mem, 0L, bytes.length);
        ABORT_REASON_READY.setRelease(mem, 0L, 1);
        // Processes blocked in a barrier wake up and see the abort now rather than at their next check.
        if (LibcFutex.hasFutex()) {
            LibcFutex.futexWakeAll(ControlBlockLayout.word(mem, BARRIER_SENSE_OFFSET));
        }
        runAbortListeners();
    }

    void onAbort(Runnable action) {
        synchronized (abortListeners) {
            abortListeners.add(action);
        }
    }

    private void runAbortListeners() {
        List<Runnable> actions;
        synchronized (abortListeners) {
            actions = List.copyOf(abortListeners);
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException ignored) {
                // An abort must go on; the listener's owner reports its own failures.
            }
        }
    }

    boolean isAborted() {
        return (int) ABORT_WORD.getAcquire(mem, 0L) != 0;
    }

    Optional<Abort> abortState() {
        int word = (int) ABORT_WORD.getAcquire(mem, 0L);
        if (word == 0) {
            return Optional.empty();
        }
        int process = word - 2;
        // The reason follows the claim by a few stores; wait briefly, the aborter may have died in between.
        long deadline = System.nanoTime() + 100_000_000L;
        IdleStrategy idle = IdleStrategy.backoff(0, Integer.MAX_VALUE, 1, 1); // yields: a few stores away
        while ((int) ABORT_REASON_READY.getAcquire(mem, 0L) == 0) {
            if (System.nanoTime() - deadline > 0) {
                return Optional.of(new Abort(process, "(no reason recorded)"));
            }
            idle.idle();
        }
        int length = Math.clamp((int) ABORT_REASON_LENGTH.get(mem, 0L), 0, MAX_REASON_BYTES);
        byte[] bytes = new byte[length];
        MemorySegment.copy(mem, JAVA_BYTE, ABORT_REASON_OFFSET, bytes, 0, length);
        return Optional.of(new Abort(process, new String(bytes, StandardCharsets.UTF_8)));
    }

    /** "aborted by process 3: reason" or "aborted by the parent: reason"; "not aborted" when not. */
    String describeAbort() {
        return abortState().map(Abort::describe).orElse("not aborted");
    }

    private static byte[] truncateUtf8(String s, int maxBytes) {
        CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer out = ByteBuffer.allocate(maxBytes);
        // Encoding stops before a character that would not fit whole.
        enc.encode(CharBuffer.wrap(s), out, true);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }
}
