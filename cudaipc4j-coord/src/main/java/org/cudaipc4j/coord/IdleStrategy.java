package org.cudaipc4j.coord;

import java.time.Duration;

/**
 * How a loop waits between two looks at what it waits for, in every wait of the project: a word in shared memory,
 * a peer that may not have started yet, a non-blocking library call, a periodic check. The loop takes one (from a
 * caller, or from a factory here) and calls {@link #idle()} each time it found nothing; it owns the deadline and the
 * checks, the strategy only how long each pause is. Implementations: {@link BackoffIdleStrategy} (phases counted in
 * calls: spin, yield, then park with a doubling period, or a fixed period), {@link TimedIdleStrategy} (phases
 * measured in time, for calls that finish on their own within microseconds). Not thread-safe: one per waiting
 * thread.
 */
public interface IdleStrategy {
    /** Waits a little; each call may wait longer than the last. Returns early when the thread is interrupted. */
    void idle();

    /** Starts a new wait: the next {@link #idle()} waits as the first one did. */
    void reset();

    /**
     * {@link #idle()}, for a loop that ends when its thread is interrupted.
     *
     * @throws InterruptedException when the thread was interrupted (its flag is cleared)
     */
    default void idleInterruptibly() throws InterruptedException {
        idle();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    /**
     * {@link #idleInterruptibly()} that never parks past {@code deadlineNanos}, so that a wait with a deadline
     * ends on time.
     *
     * @param deadlineNanos the deadline, on {@link System#nanoTime()}'s clock
     * @throws InterruptedException when the thread was interrupted (its flag is cleared)
     */
    default void idleUntil(long deadlineNanos) throws InterruptedException {
        idleInterruptibly();
    }

    /** {@return true once spinning and yielding are over: a caller that can block (futex) should do so now} */
    default boolean shouldBlock() {
        return true;
    }

    /** {@return true while still in the spinning phase (callers skip their slower checks then)} */
    default boolean isSpinning() {
        return false;
    }

    /**
     * {@return spins, then yields, then parks from {@code minParkNanos}, doubling up to {@code maxParkNanos}}
     *
     * @param maxSpins calls that spin before yielding starts
     * @param maxYields calls that yield before parking starts
     * @param minParkNanos the first park
     * @param maxParkNanos the longest park
     * @throws IllegalArgumentException when a count is negative or the parks are not {@code 0 < min <= max}
     */
    static IdleStrategy backoff(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        return new BackoffIdleStrategy(maxSpins, maxYields, minParkNanos, maxParkNanos);
    }

    /**
     * {@return parks from {@code first}, doubling up to {@code longest}: a wait on another process's progress that
     * may take a while, where a few microseconds more per wake-up do not matter}
     *
     * @param first the first park
     * @param longest the longest park
     */
    static IdleStrategy parking(Duration first, Duration longest) {
        return new BackoffIdleStrategy(0, 0, first.toNanos(), longest.toNanos());
    }

    /**
     * {@return parks {@code period} at each call: a periodic check (a heartbeat, a watch on another process)}
     *
     * @param period the pause between two checks
     */
    static IdleStrategy periodic(Duration period) {
        return new BackoffIdleStrategy(0, 0, period.toNanos(), period.toNanos());
    }

    /**
     * {@return a strategy suited to a barrier of {@code participants} processes on this machine}
     *
     * @param participants the processes that wait for one another
     */
    static IdleStrategy forParticipants(int participants) {
        int cpus = Runtime.getRuntime().availableProcessors();
        if (participants <= cpus) {
            // Everyone can be on a CPU at once: spin through a typical round, yield a little, then back off.
            return new BackoffIdleStrategy(20_000, 50, 1_000, 1_000_000);
        }
        // Oversubscribed: the process we wait for probably needs our CPU.
        return new BackoffIdleStrategy(200, 50, 1_000, 1_000_000);
    }

    /** {@return a strategy for waits expected to take milliseconds or more (another process's set-up)} */
    static IdleStrategy forLongWait() {
        return new BackoffIdleStrategy(100, 10, 10_000, 1_000_000);
    }

    /** {@return a strategy for polling a call that finishes on its own, its phases measured in time} */
    static IdleStrategy timed() {
        return new TimedIdleStrategy();
    }
}
