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

    private Liveness() {}

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
        try {
            BigDecimal seconds = new BigDecimal(value.strip());
            if (seconds.signum() > 0) {
                long nanos = seconds.movePointRight(9).longValueExact();
                if (nanos >= 1_000_000) {
                    return Duration.ofNanos(nanos);
                }
            }
        } catch (NumberFormatException | ArithmeticException e) {
            // the message below says what is wanted
        }
        throw new IllegalArgumentException(CoordSettings.HEARTBEAT_TIMEOUT.name() + "=" + value
                + " is not a number of seconds of at least 0.001");
    }
}
