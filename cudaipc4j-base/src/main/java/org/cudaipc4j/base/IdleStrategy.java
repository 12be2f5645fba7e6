package org.cudaipc4j.base;

import java.util.concurrent.locks.LockSupport;

/**
 * How a process waits for a word in shared memory to change: spin briefly (a round trip between processes that
 * are all on a CPU takes a few microseconds), then yield the CPU to whoever needs it, then park with exponential
 * backoff up to {@code maxParkNanos}, so that a long wait costs almost no CPU.
 *
 * <p>When there are more waiting processes than CPUs, spinning only delays the process everyone waits for, so
 * {@link #forParticipants} spins little and yields early. Where the kernel offers it, a barrier blocks on a futex
 * once {@link #shouldBlock()} (woken by the last process to arrive) instead of parking blindly. Its phases are
 * counted in calls; {@link TimedIdleStrategy} measures them in time instead. Not thread-safe: one per waiting thread.
 */
public final class IdleStrategy {
    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private int spins;
    private int yields;
    private long parkNanos;

    /**
     * A strategy of its own.
     *
     * @param maxSpins calls that spin before yielding starts
     * @param maxYields calls that yield before parking starts
     * @param minParkNanos the first park
     * @param maxParkNanos the longest park; each park doubles the one before up to this
     * @throws IllegalArgumentException when a count is negative or the parks are not {@code 0 < min <= max}
     */
    public IdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("bad idle strategy parameters");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    /**
     * {@return a strategy suited to a barrier of {@code participants} processes on this machine}
     *
     * @param participants the processes that wait for one another
     */
    public static IdleStrategy forParticipants(int participants) {
        int cpus = Runtime.getRuntime().availableProcessors();
        if (participants <= cpus) {
            // Everyone can be on a CPU at once: spin through a typical round, yield a little, then back off.
            return new IdleStrategy(20_000, 50, 1_000, 1_000_000);
        }
        // Oversubscribed: the process we wait for probably needs our CPU.
        return new IdleStrategy(200, 50, 1_000, 1_000_000);
    }

    /** {@return a strategy for waits expected to take milliseconds or more (another process's set-up)} */
    public static IdleStrategy forLongWait() {
        return new IdleStrategy(100, 10, 10_000, 1_000_000);
    }

    /** Starts a new wait. */
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    /** Waits a little; each call may wait longer than the last. */
    public void idle() {
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }

    /** {@return true once spinning and yielding are over: a caller that can block (futex) should do so now} */
    public boolean shouldBlock() {
        return spins >= maxSpins && yields >= maxYields;
    }

    /** {@return true while still in the spinning phase (callers skip their slower checks then)} */
    public boolean isSpinning() {
        return spins < maxSpins;
    }
}
