package org.cudaipc4j.coord;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * How long a member of a group may stay silent before it counts as stopped: one limit for every group, simpleIPC's
 * (the {@link Supervisor}, the children's waits) and the NCCL ranks' rendezvous alike, set by
 * {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}. A process stopped by SIGSTOP, or hung so that its heartbeat thread no longer
 * runs, is noticed this long after its last heartbeat.
 */
public final class Liveness {
    /** The silence limit unless {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} sets another: 3 s. */
    public static final Duration DEFAULT_SILENCE_LIMIT = Duration.ofSeconds(3);

    /**
     * The shortest gap between two looks at the clock that counts as a pause of the looking process, whatever the
     * silence limit: well above the looks' periods (a wait looks every 100 ms, a {@link ParentWatch} every 200 ms),
     * so that a small limit does not make every look a pause.
     */
    private static final long SHORTEST_PAUSE_NANOS = 250_000_000L;

    private Liveness() {}

    /**
     * {@return the gap between two looks at this process's clock beyond which it did not run in between} (it was
     * stopped with the rest of its job, as Ctrl-Z does, or starved of CPU): half of {@code silenceLimit}, 250 ms at
     * least. Such a look says nothing of the others, who may not have resumed yet; the waits that judge others count
     * again from it.
     *
     * @param silenceLimit the silence limit in force
     */
    static long pauseNanos(Duration silenceLimit) {
        return Math.max(SHORTEST_PAUSE_NANOS, silenceLimit.toNanos() / 2);
    }

    /**
     * {@return the silence limit {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} sets, else {@link #DEFAULT_SILENCE_LIMIT}}
     *
     * @throws IllegalArgumentException one line naming the variable when its value is no limit
     */
    public static Duration silenceLimit() {
        return CoordSettings.HEARTBEAT_TIMEOUT.get();
    }

    /**
     * The silence limit that {@code value}, the text of {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}, sets.
     *
     * @param value seconds, such as {@code 3} or {@code 1.5}; null or blank for the default
     * @return the limit
     * @throws IllegalArgumentException one line naming the variable and the bad value
     */
    public static Duration silenceLimitFrom(String value) {
        if (value == null || value.isBlank()) {
            return DEFAULT_SILENCE_LIMIT;
        }
        String text = value.strip();
        long nanos = plainNanos(text);
        if (nanos < 0) {
            try {
                BigDecimal seconds = new BigDecimal(text);
                nanos = seconds.signum() > 0 ? seconds.movePointRight(9).longValueExact() : 0;
            } catch (NumberFormatException | ArithmeticException e) {
                nanos = 0; // the message below says what is wanted
            }
        }
        if (nanos >= 1_000_000) {
            return Duration.ofNanos(nanos);
        }
        throw new IllegalArgumentException(CoordSettings.HEARTBEAT_TIMEOUT.name() + "=" + value
                + " is not a number of seconds of at least 0.001");
    }

    /**
     * The nanoseconds of {@code text} when it is plain seconds ({@code 3}, {@code 1.5}: up to 9 digits, a point, up
     * to 9 more), else -1 for {@link BigDecimal} to read. Every child reads the limit on its way to its first step,
     * and a JVM's first {@code BigDecimal} costs it tens of milliseconds (its and {@code BigInteger}'s classes).
     */
    private static long plainNanos(String text) {
        int point = text.indexOf('.');
        int whole = point < 0 ? text.length() : point;
        int fraction = point < 0 ? 0 : text.length() - point - 1;
        if (whole > 9 || fraction > 9 || whole + fraction == 0) {
            return -1;
        }
        long nanos = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (i == point) {
                continue;
            }
            if (c < '0' || c > '9') {
                return -1;
            }
            nanos = nanos * 10 + (c - '0');
        }
        for (int i = fraction; i < 9; i++) {
            nanos *= 10;
        }
        return nanos;
    }
}
