package org.cudaipc4j.coord;

import java.time.Duration;

/**
 * A point in time by which something must be done, with the limit it came from and that limit's name, so that a
 * timeout can say which limit passed and what was being waited for ("timed out after 2 s (--timeout) waiting for
 * process 3 to finish"), however much of it earlier steps used.
 *
 * @param expiresAtNanos {@link System#nanoTime()} at the deadline
 * @param limit          the whole limit
 * @param limitName      what set it, e.g. {@code --timeout}
 */
public record Deadline(long expiresAtNanos, Duration limit, String limitName) {
    /** The deadline {@code limit} from now. */
    public static Deadline after(Duration limit, String limitName) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException(limitName + " must be positive, got " + limit);
        }
        return new Deadline(System.nanoTime() + limit.toNanos(), limit, limitName);
    }

    /** What is left, zero once passed. */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, expiresAtNanos - System.nanoTime()));
    }

    public boolean hasPassed() {
        return System.nanoTime() - expiresAtNanos >= 0;
    }

    /** "timed out after 2 s (--timeout) waiting for {@code what}". */
    public String timedOut(String what) {
        return "timed out after " + Durations.format(limit) + " (" + limitName + ") waiting for " + what;
    }
}
