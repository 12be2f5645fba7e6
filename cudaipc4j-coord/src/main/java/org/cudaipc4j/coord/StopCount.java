package org.cudaipc4j.coord;

import java.time.Duration;

/**
 * How long a process without a heartbeat (the starter that a {@link ParentWatch} watches) has been stopped by the
 * kernel's account, counted by this process's clock from the first look that found it stopped. A process stopped for
 * longer than the silence limit ({@link Liveness}) has stopped responding, as a silent heartbeat has.
 *
 * <p>The watcher's own clock is judged as {@link Deadline} judges it: a look that comes longer than
 * {@link Liveness#pauseNanos} after the last one means this process did not run in between (it was stopped with the
 * rest of its job, as Ctrl-Z does), and says nothing of how long the other was stopped while it was not looking: the
 * count starts again from that look.
 *
 * <p>Not thread-safe: one per watching thread.
 */
final class StopCount {
    private final long limitNanos;
    private final OwnClock clock;
    private long stoppedSince;
    private boolean stopped;

    StopCount(Duration limit) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("silence limit must be positive, got " + limit);
        }
        this.limitNanos = limit.toNanos();
        this.clock = new OwnClock(Liveness.pauseNanos(limit));
    }

    /**
     * One look: {@code now} must be read before the process's state, so that a pause of this process between the two
     * makes no stop seem longer than it was.
     *
     * @param now {@link System#nanoTime()} read just before
     * @param stoppedNow whether the kernel showed the process stopped at this look
     * @return how long it has been stopped when that is longer than the limit, else null
     */
    Duration look(long now, boolean stoppedNow) {
        boolean resumed = clock.resumedAt(now);
        if (!stoppedNow) {
            stopped = false;
            return null;
        }
        if (resumed || !stopped) {
            stopped = true;
            stoppedSince = now;
            return null;
        }
        long nanos = now - stoppedSince;
        return nanos > limitNanos ? Duration.ofNanos(nanos) : null;
    }
}
