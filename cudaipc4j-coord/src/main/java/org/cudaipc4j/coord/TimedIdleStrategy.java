package org.cudaipc4j.coord;

import java.util.concurrent.locks.LockSupport;

/**
 * The {@link IdleStrategy} of a thread that polls a call that finishes on its own (a non-blocking library call),
 * with phases measured in time since the wait began: spins for the first 100 microseconds (such a call usually finishes within tens of them, and a
 * small operation's latency is made of such waits), then yields up to a millisecond, then parks for growing periods
 * up to a millisecond. {@link BackoffIdleStrategy} counts its phases in calls instead. Not thread-safe: one per wait.
 */
public final class TimedIdleStrategy implements IdleStrategy {
    private static final long SPIN_NANOS = 100_000;
    private static final long YIELD_NANOS = 1_000_000;
    private static final long MIN_PARK_NANOS = 10_000;
    private static final long MAX_PARK_NANOS = 1_000_000;
    private long start = System.nanoTime();
    private long park = MIN_PARK_NANOS;

    /** A wait that begins now. */
    public TimedIdleStrategy() {}

    /** A wait that begins now. */
    @Override
    public void reset() {
        start = System.nanoTime();
        park = MIN_PARK_NANOS;
    }

    /** Waits a little; once yielding is over, each call parks longer than the last. */
    @Override
    public void idle() {
        long waited = System.nanoTime() - start;
        if (waited < SPIN_NANOS) {
            Thread.onSpinWait();
        } else if (waited < YIELD_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(park);
            park = Math.min(MAX_PARK_NANOS, park * 2);
        }
    }

    /** {@return how long the next park lasts} */
    long nextParkNanos() {
        return park;
    }
}
