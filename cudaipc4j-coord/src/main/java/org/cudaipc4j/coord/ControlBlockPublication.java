package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.ControlBlockLayout.ASSIGNED;
import static org.cudaipc4j.coord.ControlBlockLayout.ASSIGNMENT;
import static org.cudaipc4j.coord.ControlBlockLayout.DISMISSED;
import static org.cudaipc4j.coord.ControlBlockLayout.READY;
import static org.cudaipc4j.coord.ControlBlockLayout.READY_WORD;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * What the parent publishes to its children through a control block: the assignment word (assigned or dismissed,
 * claimed by compare-and-set) and the ready word (a release write), read with acquire semantics, and the children's
 * wait for them ({@link #awaitParent}). Thread-safe: its state is fixed at construction and every shared word
 * is atomic.
 */
final class ControlBlockPublication {
    private static final long CHECK_EVERY_NANOS = 50_000_000L;

    private final MemorySegment mem;
    private final String name;

    ControlBlockPublication(MemorySegment mem, String name) {
        this.mem = mem;
        this.name = name;
    }

    void publishAssignment() {
        if (!ASSIGNMENT.compareAndSet(mem, 0L, 0, ASSIGNED)) {
            throw new IllegalStateException("control block " + name + " was already assigned or dismissed");
        }
    }

    void dismiss() {
        ASSIGNMENT.compareAndSet(mem, 0L, 0, DISMISSED);
    }

    /** {@return true once the assignment is published or the group dismissed} */
    boolean assignmentDecided() {
        return (int) ASSIGNMENT.getAcquire(mem, 0L) != 0;
    }

    /** {@return true when the assignment is published (not dismissed)} */
    boolean isAssigned() {
        return (int) ASSIGNMENT.getAcquire(mem, 0L) == ASSIGNED;
    }

    void publishReady() {
        READY_WORD.setRelease(mem, 0L, READY);
    }

    boolean isReady() {
        return (long) READY_WORD.getAcquire(mem, 0L) == READY;
    }

    /** A child's wait for {@code done}, checking for an abort, the parent's death or silence and the timeout. */
    static void awaitParent(ControlBlock block, Duration timeout, String what, BooleanSupplier done) {
        Duration silenceLimit = Liveness.silenceLimit();
        Deadline deadline = Deadline.after(timeout, "the timeout", silenceLimit);
        long nextCheck = System.nanoTime() + CHECK_EVERY_NANOS;
        IdleStrategy idle = IdleStrategy.forLongWait();
        HeartbeatWatch parent = new HeartbeatWatch(block, silenceLimit);
        long creatorPid = block.creatorPid();
        while (!done.getAsBoolean()) {
            if (block.isAborted()) {
                throw new CoordinationException("waiting for the parent's " + what + ": " + block.describeAbort());
            }
            idle.idle();
            if (!idle.isSpinning()) {
                long now = System.nanoTime();
                if (now - nextCheck >= 0) {
                    nextCheck = now + CHECK_EVERY_NANOS;
                    if (!Pids.isAlive(creatorPid)) {
                        throw new CoordinationException("the parent (pid " + creatorPid
                                + ") died before publishing its " + what);
                    }
                    Duration silence = parent.look(now) ? parent.silence(ControlBlock.PARENT) : null;
                    if (silence != null) {
                        throw new CoordinationException("the parent (pid " + creatorPid + ") "
                                + HeartbeatWatch.stoppedResponding(silence) + " before publishing its " + what);
                    }
                }
                if (deadline.hasPassed()) {
                    throw new CoordinationException("timed out after " + Durations.format(timeout)
                            + " waiting for the parent to publish its " + what);
                }
            }
        }
    }
}
