package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.Objects;

/**
 * A point in time by which something must be done, with the limit it came from and that limit's name, so that a
 * timeout can say which limit passed and what was being waited for ("timed out after 2 s (--timeout) waiting for
 * process 3 to finish"), however much of it earlier steps used. Made only by {@link #after}, from a
 * {@link Duration}.
 */
public final class Deadline {
    /**
     * The longest wait a deadline tells apart: {@link System#nanoTime()} differences are exact up to 2^63 ns, so a
     * longer limit (a user's "forever") waits this long, about 146 years.
     */
    private static final long LONGEST_NANOS = Long.MAX_VALUE / 2;

    private final long expiresAtNanos;
    private final Duration limit;
    private final String limitName;

    private Deadline(long expiresAtNanos, Duration limit, String limitName) {
        this.expiresAtNanos = expiresAtNanos;
        this.limit = limit;
        this.limitName = limitName;
    }

    /**
     * {@return the deadline {@code limit} from now} {@code limitName} says what set it in messages, e.g.
     * {@code --timeout}.
     *
     * @param limit how long from now; positive
     * @param limitName what set the limit, for messages
     * @throws IllegalArgumentException when {@code limit} is zero or negative
     */
    public static Deadline after(Duration limit, String limitName) {
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(limitName, "limitName");
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException(limitName + " must be positive, got " + limit);
        }
        long nanos = limit.compareTo(Duration.ofNanos(LONGEST_NANOS)) > 0 ? LONGEST_NANOS : limit.toNanos();
        return new Deadline(System.nanoTime() + nanos, limit, limitName);
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
        return Duration.ofNanos(Math.max(0, expiresAtNanos - System.nanoTime()));
    }

    /** {@return true once the deadline is reached} */
    public boolean hasPassed() {
        return System.nanoTime() - expiresAtNanos >= 0;
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
}
