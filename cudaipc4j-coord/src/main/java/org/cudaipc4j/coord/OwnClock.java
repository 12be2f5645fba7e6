package org.cudaipc4j.coord;

/**
 * This process's clock, judged at each look: a look that comes longer than the pause after the last one means this
 * process did not run in between (it was stopped with the rest of its job, as Ctrl-Z does, or starved of CPU), and
 * says nothing of what others did meanwhile. The one rule by which {@link HeartbeatWatch} restarts its silence counts,
 * {@link StopCount} its count of a stop and {@link Deadline} leaves such a gap uncounted.
 *
 * <p>Not thread-safe: its owner guards it.
 */
final class OwnClock {
    private final long pauseNanos;
    private long lastLook;
    private long lastGap;
    private boolean looked;

    /**
     * A clock not looked at yet: its first look counts as coming after a pause (nothing seen before it counts).
     *
     * @param pauseNanos the longest gap between two looks that this process is taken to have run through
     */
    OwnClock(long pauseNanos) {
        this.pauseNanos = pauseNanos;
    }

    /**
     * A clock first looked at {@code now}.
     *
     * @param pauseNanos the longest gap between two looks that this process is taken to have run through
     * @param now {@link System#nanoTime()} or the owner's clock
     */
    OwnClock(long pauseNanos, long now) {
        this(pauseNanos);
        this.lastLook = now;
        this.looked = true;
    }

    /**
     * One look. {@code now} must be read before what the look judges: a stop of this process between the two then
     * makes nothing seem longer than it was.
     *
     * @param now {@link System#nanoTime()}, or the owner's clock
     * @return true when this look comes longer than the pause after the last one, or is a fresh clock's first
     */
    boolean resumedAt(long now) {
        boolean resumed = !looked || now - lastLook > pauseNanos;
        lastGap = looked ? now - lastLook : 0;
        looked = true;
        lastLook = now;
        return resumed;
    }

    /** {@return when the last look was} */
    long lastLook() {
        return lastLook;
    }

    /** {@return the time between the last look and the one before it (0 after a fresh clock's first)} */
    long lastGap() {
        return lastGap;
    }
}
