package org.cudaipc4j.coord;

import java.util.concurrent.locks.LockSupport;

/**
 * The {@link IdleStrategy} of waits on another process: spin briefly (a round trip between processes that
 * are all on a CPU takes a few microseconds), then yield the CPU to whoever needs it, then park with exponential
 * backoff up to {@code maxParkNanos}, so that a long wait costs almost no CPU.
 *
 * <p>When there are more waiting processes than CPUs, spinning only delays the process everyone waits for, so
 * {@link IdleStrategy#forParticipants} spins little and yields early. Where the kernel offers it, a barrier blocks on
 * a futex once {@link #shouldBlock()} (woken by the last process to arrive) instead of parking blindly. Its phases
 * are counted in calls; {@link TimedIdleStrategy} measures them in time instead. Not thread-safe: one per waiting
 * thread.
 */
public final class BackoffIdleStrategy implements IdleStrategy {
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
    public BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("bad idle strategy parameters");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    @Override
    public void idle() {
        idleAtMost(Long.MAX_VALUE);
    }

    @Override
    public void idleUntil(long deadlineNanos) throws InterruptedException {
        idleAtMost(Math.max(1, deadlineNanos - System.nanoTime()));
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    /** Spins, yields, or parks for the current period but no longer than {@code limitNanos}. */
    private void idleAtMost(long limitNanos) {
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(parkNanos, limitNanos));
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }

    @Override
    public boolean shouldBlock() {
        return spins >= maxSpins && yields >= maxYields;
    }

    @Override
    public boolean isSpinning() {
        return spins < maxSpins;
    }
}
