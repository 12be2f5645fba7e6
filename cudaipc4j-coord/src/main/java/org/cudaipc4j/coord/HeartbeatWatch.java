package org.cudaipc4j.coord;

import java.time.Duration;

/**
 * The one judgement of heartbeats, made by every wait of a group: the supervisor's over its members, a child's over
 * its parent (or, where the parent has no heartbeat, its siblings). A party whose heartbeat word has not changed
 * for longer than the silence limit ({@link Liveness}), by this process's clock, has stopped responding; a party
 * with no heartbeat yet is not judged.
 *
 * <p>The watcher's own clock is judged too: a look that comes more than half the limit after the last one means
 * this process did not run in between (it was stopped with the rest of its job, as Ctrl-Z does, or starved of CPU),
 * and says nothing of the others, whose heartbeats may not have resumed yet. Such a look takes what the heartbeats
 * hold now as the new start and counts every silence again from there.
 *
 * <p>Not thread-safe: one per waiting thread.
 */
final class HeartbeatWatch {
    private final ControlBlock block;
    private final long limitNanos;
    /** By party + 1 (the parent first): the heartbeat seen at the last look, and when it last changed. */
    private final long[] seen;
    private final long[] changedAt;
    /** Judges this process's own clock: a look more than half the limit after the last one comes after a pause. */
    private final OwnClock clock;

    HeartbeatWatch(ControlBlock block, Duration limit) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("silence limit must be positive, got " + limit);
        }
        this.block = block;
        this.limitNanos = limit.toNanos();
        this.clock = new OwnClock(limitNanos / 2);
        this.seen = new long[block.processCount() + 1];
        this.changedAt = new long[seen.length];
    }

    /**
     * Looks at every heartbeat. {@code now} must be read before the look: a stop of this process between the two
     * then makes no silence seem longer than it was.
     *
     * @param now {@link System#nanoTime()} read just before
     * @return false when this look came long after the last one (or is the first), and every count starts again
     */
    boolean look(long now) {
        boolean resumed = clock.resumedAt(now);
        for (int p = ControlBlock.PARENT; p < block.processCount(); p++) {
            long heartbeat = block.lastHeartbeatOf(p);
            if (resumed || heartbeat != seen[p + 1]) {
                seen[p + 1] = heartbeat;
                changedAt[p + 1] = now;
            }
        }
        return !resumed;
    }

    /**
     * {@return how long {@code party} had been silent at the last look when that is longer than the limit, else null}
     *
     * @param party a slot's index, or {@link ControlBlock#PARENT}
     */
    Duration silence(int party) {
        long silent = clock.lastLook() - changedAt[party + 1];
        return seen[party + 1] != 0 && silent > limitNanos ? Duration.ofNanos(silent) : null;
    }

    /**
     * A child's judgement, for process {@code self} waiting in the group: the parent when it heartbeats (it then
     * judges the children itself), else the first sibling, that stopped responding, described as the reason of the
     * abort that follows, or null when none did.
     *
     * @param self the waiting process's index
     * @param waiting what it was doing, for the message ("waited in barrier round 3")
     * @param now {@link System#nanoTime()} read just before
     */
    String stoppedResponding(int self, String waiting, long now) {
        if (!look(now)) {
            return null;
        }
        if (seen[0] != 0) {
            Duration d = silence(ControlBlock.PARENT);
            return d == null ? null : "the parent (pid " + block.creatorPid() + ") " + stopped(d, self, waiting);
        }
        for (int p = 0; p < block.processCount(); p++) {
            Duration d = p == self ? null : silence(p);
            if (d != null && !finishing(block.status(p))) {
                return "process " + p + " (pid " + block.pid(p) + ") " + stopped(d, self, waiting);
            }
        }
        return null;
    }

    /** Whether a process with this status has left its waits: its heartbeat may stop, as it does once it is DONE. */
    static boolean finishing(ProcessStatus s) {
        return s == ProcessStatus.DONE || s == ProcessStatus.FAILED || s == ProcessStatus.RELEASED;
    }

    private static String stopped(Duration silence, int self, String waiting) {
        return "stopped responding for " + Durations.seconds(silence) + " while process " + self + " " + waiting;
    }

    /** {@return the reason a supervisor gives for a member silent for {@code silence}} */
    static String stoppedResponding(Duration silence) {
        return "stopped responding for " + Durations.seconds(silence);
    }
}
