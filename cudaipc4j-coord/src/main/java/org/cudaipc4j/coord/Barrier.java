package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.ControlBlockLayout.BARRIER_COUNT;
import static org.cudaipc4j.coord.ControlBlockLayout.BARRIER_SENSE;
import static org.cudaipc4j.coord.ControlBlockLayout.BARRIER_SENSE_OFFSET;
import static org.cudaipc4j.coord.ControlBlockLayout.BARRIER_SLEEPERS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.cudaipc4j.base.LibcFutex;

/**
 * One process's handle on the group's two-phase, sense-reversing barrier (the simpleIPC sample's), kept in the
 * {@link ControlBlock}: check in (atomic increment; the last to arrive sets sense to 1; wait until sense is 1),
 * then check out (atomic decrement; the last to leave sets sense to 0; wait until sense is 0). Any number of rounds.
 *
 * <p>Unlike the sample's, a wait does not burn a core ({@link IdleStrategy}: spin, yield, then block on a futex
 * that the last arriver wakes only when someone sleeps, or park with backoff where there is no futex), has a
 * timeout, and ends with a {@link BarrierException} when the group is aborted, when a participant or the parent
 * dies or stops responding (checked every ~50 ms, across rounds that never wait long too, never in the hot spin;
 * see {@link HeartbeatWatch}), or on timeout (a {@link Deadline} per wait: time the process did not run, stopped with
 * its job, does not count). A process that times out or finds a dead or silent participant aborts the group, so that the others
 * stop too; the abort wakes those asleep on the futex at once. After an exception the barrier is unusable.
 *
 * <p>The futex is Linux's (x86-64 and AArch64), on the shared mapping; {@code -Dcudaipc4j.nofutex=true} turns it
 * off, leaving spin, yield and park.
 *
 * <p>Obtain with {@link ControlBlock#barrier(int, Duration)}; one per process (not thread-safe).
 */
public final class Barrier {
    /** How often a wait looks for the dead and the silent (never in the hot spin). */
    static final Duration CHECK_EVERY = Duration.ofMillis(50);

    private final ControlBlock block;
    private final MemorySegment mem;
    private final int index;
    private final int participants;
    private final Duration timeout;
    private final Duration silenceLimit;
    private final IdleStrategy idle;
    private final boolean futex;
    private final boolean canWake = LibcFutex.hasFutex();
    private final MemorySegment senseWord;
    private final MemorySegment timespec;
    private final long checkEveryNanos;
    private final HeartbeatWatch heartbeats;
    /** When the next look for the dead and the silent is due: kept across awaits, so that short rounds look too. */
    private long nextCheck;
    private long round;

    Barrier(ControlBlock block, int index, Duration timeout) {
        this(block, index, timeout, LibcFutex.hasFutex());
    }

    /** With {@code useFutex} false, waits park with backoff instead of blocking on a futex (tests both paths). */
    Barrier(ControlBlock block, int index, Duration timeout, boolean useFutex) {
        this(block, index, timeout, useFutex, CHECK_EVERY);
    }

    /** As above, looking for the dead and the silent every {@code checkEvery} (tests what does not wait for it). */
    Barrier(ControlBlock block, int index, Duration timeout, boolean useFutex, Duration checkEvery) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("barrier timeout must be positive, got " + timeout);
        }
        this.block = block;
        this.mem = block.memory();
        this.index = index;
        this.participants = block.processCount();
        this.timeout = timeout;
        this.silenceLimit = Liveness.silenceLimit();
        this.futex = useFutex && LibcFutex.hasFutex();
        this.idle = IdleStrategy.forParticipants(participants);
        this.senseWord = block.word(BARRIER_SENSE_OFFSET);
        this.timespec = futex ? Arena.ofAuto().allocate(16, 8) : null;
        this.checkEveryNanos = checkEvery.toNanos();
        this.heartbeats = new HeartbeatWatch(block, silenceLimit);
        this.nextCheck = System.nanoTime() + checkEveryNanos;
    }

    /**
     * Waits until every process of the group has called {@code await} for this round.
     *
     * @throws BarrierException when the group is aborted, a participant or the parent died or stopped responding, or
     *     the wait timed out
     */
    public void await() {
        long start = System.nanoTime();
        Deadline deadline = deadline();
        if (block.isAborted()) {
            throw new BarrierException("barrier " + block.describeAbort());
        }
        // A group whose rounds never wait long still looks every checkEvery: a stopped parent ends it too.
        String lost = lostIfDue(start, null);
        if (lost != null) {
            throw leave(lost, "barrier ");
        }
        int arrived = (int) BARRIER_COUNT.getAndAdd(mem, 0L, 1) + 1;
        if (arrived == participants) {
            flipSense(1);
        } else {
            waitForSense(1, deadline);
        }
        int remaining = (int) BARRIER_COUNT.getAndAdd(mem, 0L, -1) - 1;
        if (remaining == 0) {
            flipSense(0);
        } else {
            waitForSense(0, deadline);
        }
        round++;
    }

    /** {@return the rounds completed by this process so far (the 0-based number of the round it will wait in next)} */
    public long round() {
        return round;
    }

    /** {@return this process's index in the group} */
    public int index() {
        return index;
    }

    /** Publishes the new sense and wakes the processes blocked on it, if any (a syscall only then). */
    private void flipSense(int value) {
        BARRIER_SENSE.setVolatile(mem, 0L, value);
        // Whether or not this process blocks itself, others may: wake them whenever the platform has futexes.
        if (canWake && (int) BARRIER_SLEEPERS.getVolatile(mem, 0L) != 0) {
            LibcFutex.futexWakeAll(senseWord);
        }
    }

    /**
     * Blocks until the sense changes from {@code 1 - target}, a wake-up, or {@code nanos}. The sleeper count is
     * raised before the sense is checked one last time, so a waker either sees a sleeper or the sleeper sees
     * the new sense (both sides use sequentially consistent accesses).
     */
    private void sleep(int target, long nanos) {
        addSleepers(1);
        try {
            if ((int) BARRIER_SENSE.getVolatile(mem, 0L) != target && !block.isAborted()) {
                LibcFutex.futexWait(senseWord, 1 - target, nanos, timespec);
            }
        } finally {
            addSleepers(-1);
        }
    }

    private void addSleepers(int delta) {
        int previous = (int) BARRIER_SLEEPERS.getAndAdd(mem, 0L, delta);
        assert previous + delta >= 0 : "negative barrier sleeper count";
    }

    /** {@return the timeout of one wait, from now: only time this process ran counts ({@link Deadline})} */
    private Deadline deadline() {
        return Deadline.after(timeout, "the barrier's timeout", silenceLimit);
    }

    private void waitForSense(int target, Deadline deadline) {
        idle.reset();
        int iterations = 0;
        while (true) {
            if ((int) BARRIER_SENSE.getAcquire(mem, 0L) == target) {
                return;
            }
            if (block.isAborted()) {
                // A round that completed anyway (e.g. a sibling failed after its last await) still counts.
                if (reached(target)) {
                    return;
                }
                throw new BarrierException("barrier " + block.describeAbort());
            }
            if (futex && idle.shouldBlock()) {
                long now = System.nanoTime();
                long until = Math.min(nextCheck - now, deadline.remaining().toNanos());
                sleep(target, Math.clamp(until, 1_000L, checkEveryNanos));
            } else {
                idle.idle();
                if (idle.isSpinning() && (++iterations & 255) != 0) {
                    continue;
                }
            }
            long now = System.nanoTime();
            String lost = lostIfDue(now, null);
            if (lost != null && !reached(target)) {
                throw leave(lost, "barrier ");
            }
            if (deadline.hasPassed()) {
                if (reached(target)) {
                    return;
                }
                String msg = "barrier timed out after " + Durations.format(timeout) + " in round " + round
                        + " (process " + index + ")";
                block.abort(index, msg);
                throw new BarrierException(msg);
            }
        }
    }

    /**
     * Waits, as this participant, until {@code condition} holds (a local wait, such as for its own device to catch
     * up), giving up as {@link #await} does: when the group is aborted, a participant or the parent dies or stops
     * responding (this aborts the group), or the timeout passes.
     *
     * @param what what is waited for, for the messages ("the device to catch up")
     * @param condition polled until it returns true
     * @throws BarrierException when it gives up
     */
    public void awaitCondition(BooleanSupplier condition, String what) {
        Deadline deadline = deadline();
        IdleStrategy wait = IdleStrategy.forLongWait();
        while (!condition.getAsBoolean()) {
            if (block.isAborted()) {
                throw new BarrierException("waiting for " + what + ": " + block.describeAbort());
            }
            wait.idle();
            long now = System.nanoTime();
            String lost = lostIfDue(now, what);
            if (lost != null) {
                throw leave(lost, "waiting for " + what + ": ");
            }
            if (deadline.hasPassed()) {
                String msg = "process " + index + " timed out after " + Durations.format(timeout) + " waiting for " + what;
                block.abort(index, msg);
                throw new BarrierException(msg);
            }
        }
    }

    private boolean reached(int target) {
        return (int) BARRIER_SENSE.getAcquire(mem, 0L) == target;
    }

    /**
     * When a look is due: the first participant (or the parent) that is gone or stopped responding, described; null
     * when all live or no look is due.
     *
     * @param now {@link System#nanoTime()}, read just before
     * @param what what a local wait waits for, or null in a barrier round
     */
    private String lostIfDue(long now, String what) {
        if (now - nextCheck < 0) {
            return null;
        }
        nextCheck = now + checkEveryNanos;
        String waiting = what == null ? "waited in barrier round " + round : "waited for " + what;
        String dead = findDead(waiting);
        return dead != null ? dead : heartbeats.stoppedResponding(index, waiting, now);
    }

    /**
     * Aborts the group for {@code reason} and gives the exception to throw: {@code reason} itself where this
     * abort came first, else the first abort ({@code prefix} before it), so that one process alone names the cause.
     */
    private BarrierException leave(String reason, String prefix) {
        block.abort(index, reason);
        boolean first = block.abortState().map(a -> a.process() == index).orElse(false);
        return new BarrierException(first ? reason : prefix + block.describeAbort());
    }

    private String findDead(String waiting) {
        for (int p = 0; p < participants; p++) {
            if (p == index) {
                continue;
            }
            long pid = block.pid(p);
            if (pid != 0 && !Pids.isAlive(pid)) {
                boolean finished = block.status(p) == ProcessStatus.DONE;
                return "process " + p + " (pid " + pid + ") " + (finished ? "exited" : "died") + " while process "
                        + index + " " + waiting;
            }
        }
        long creator = block.creatorPid();
        if (!Pids.isAlive(creator)) {
            return "the parent (pid " + creator + ") died while process " + index + " " + waiting;
        }
        return null;
    }

}
