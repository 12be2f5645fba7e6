package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A point in time by which something must be done, with the limit it came from and that limit's name, so that a
 * timeout can say which limit passed and what was being waited for ("timed out after 2 s (--timeout) waiting for
 * process 3 to finish"), however much of it earlier steps used. Made only by {@link #after}, from a
 * {@link Duration}.
 *
 * <p>Only time this process ran counts against the limit. Each question ({@link #remaining()}, {@link #hasPassed()},
 * {@link #nextWait()}) is a look at the clock; a look that comes more than half the silence limit ({@link Liveness},
 * 250 ms at least) after the last one means this process did not run in between (it was stopped with the rest of
 * its job, as Ctrl-Z does, or starved of CPU), as {@link HeartbeatWatch} judges it, and the deadline moves later by
 * that gap. A wait therefore asks at least every {@link #nextWait()}: it blocks no longer than that before it asks
 * again. Its making is its first look: a wait stopped before it first looked (a short barrier round may never look)
 * does not count the stop. Once a look has found the deadline passed, it stays passed.
 *
 * <p>Thread-safe: threads that wait for the same deadline share its looks.
 */
public final class Deadline {
    /**
     * The longest wait a deadline tells apart: {@link System#nanoTime()} differences are exact up to 2^63 ns, so a
     * longer limit (a user's "forever") waits this long, about 146 years.
     */
    private static final long LONGEST_NANOS = Long.MAX_VALUE / 2;

    private final Duration limit;
    private final String limitName;
    private final LongSupplier clock;
    /** A gap between two looks longer than this is time this process did not run. */
    private final long pauseNanos;
    /** Judges this process's own clock between looks; guarded by {@code this}. */
    private final OwnClock ownClock;
    private long expiresAtNanos;
    private boolean passed;

    /**
     * A deadline {@code limit} from now by {@code clock}, a gap between looks longer than
     * {@link Liveness#pauseNanos} of {@code silenceLimit} counting as a pause.
     */
    Deadline(Duration limit, String limitName, LongSupplier clock, Duration silenceLimit) {
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(limitName, "limitName");
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException(limitName + " must be positive, got " + limit);
        }
        this.limit = limit;
        this.limitName = limitName;
        this.clock = clock;
        this.pauseNanos = Liveness.pauseNanos(silenceLimit);
        long nanos = limit.compareTo(Duration.ofNanos(LONGEST_NANOS)) > 0 ? LONGEST_NANOS : limit.toNanos();
        long now = clock.getAsLong();
        this.ownClock = new OwnClock(pauseNanos, now);
        this.expiresAtNanos = now + nanos;
    }

    /**
     * {@return the deadline {@code limit} from now} {@code limitName} says what set it in messages, e.g.
     * {@code --timeout}.
     *
     * @param limit how long from now; positive
     * @param limitName what set the limit, for messages
     * @throws IllegalArgumentException when {@code limit} is zero or negative, or {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}
     *     is no limit
     */
    public static Deadline after(Duration limit, String limitName) {
        return after(limit, limitName, Liveness.silenceLimit());
    }

    /** As {@link #after(Duration, String)}, for a caller that has read the silence limit already. */
    static Deadline after(Duration limit, String limitName, Duration silenceLimit) {
        return new Deadline(limit, limitName, NanoTime.CLOCK, silenceLimit);
    }

    /** {@return the whole limit, as given to {@link #after}} */
    public Duration limit() {
        return limit;
    }

    /** {@return what set the limit, e.g. {@code --timeout}} */
    public String limitName() {
        return limitName;
    }

    /** {@return what is left, zero once passed} */
    public Duration remaining() {
        return Duration.ofNanos(look());
    }

    /** {@return true once the deadline is reached} */
    public boolean hasPassed() {
        return look() == 0;
    }

    /**
     * {@return how long a wait may block before it asks again: what is left, at most a quarter of the silence limit}
     * A wait that blocked for longer would be taken for a pause of this process.
     */
    public Duration nextWait() {
        return Duration.ofNanos(Math.min(look(), pauseNanos / 2));
    }

    /**
     * {@return the nanoseconds left, zero once passed} Moves the expiry later by the gap since the last look when
     * that gap says this process did not run.
     */
    private synchronized long look() {
        long now = clock.getAsLong();
        boolean resumed = ownClock.resumedAt(now);
        if (passed) {
            return 0;
        }
        if (resumed) {
            expiresAtNanos += ownClock.lastGap();
        }
        long left = expiresAtNanos - now;
        passed = left <= 0;
        return Math.max(0, left);
    }

    /**
     * {@return the message of a timeout, such as "timed out after 2 s (--timeout) waiting for {@code what}"}
     *
     * @param what what was waited for
     */
    public String timedOut(String what) {
        return "timed out after " + Durations.format(limit) + " (" + limitName + ") waiting for " + what;
    }

    @Override
    public String toString() {
        return limitName + " of " + Durations.format(limit) + " (" + Durations.format(remaining()) + " left)";
    }

    /** {@link System#nanoTime()}: a class rather than a method reference, which costs a child's start-up linking. */
    private static final class NanoTime implements LongSupplier {
        static final NanoTime CLOCK = new NanoTime();

        @Override
        public long getAsLong() {
            return System.nanoTime();
        }
    }
}
