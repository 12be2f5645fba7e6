package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.Locale;

/**
 * How the libraries word a duration in their messages, in three forms: {@link #format} in the unit a reader expects
 * for the size, {@link #millisOrSeconds} in milliseconds or seconds only (the rendezvous's lines, which the Python
 * package words the same), and {@link #seconds} always in seconds with one decimal (NCCL's limits).
 */
public final class Durations {
    private Durations() {}

    /**
     * "250 ms", "1.5 s", "30 s", "2 min", "1 h 5 min": the unit a reader expects for the size.
     *
     * @param d the duration to write
     * @return {@code d} in that unit
     */
    public static String format(Duration d) {
        if (d.getSeconds() >= 3600) {
            // In whole seconds: a limit of centuries has more milliseconds than a long holds.
            long s = d.getSeconds();
            return (s / 3600) + " h" + (s % 3600 / 60 == 0 ? "" : " " + (s % 3600 / 60) + " min");
        }
        long ms = d.toMillis();
        if (ms < 60_000) {
            return millisOrSeconds(d);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return s % 60 == 0 ? (s / 60) + " min" : (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3600) + " h" + (s % 3600 / 60 == 0 ? "" : " " + (s % 3600 / 60) + " min");
    }

    /**
     * "250 ms" under a second, else seconds, whole where they are: "1.5 s", "3 s", "120 s".
     *
     * @param d the duration to write
     * @return {@code d} in milliseconds or seconds
     */
    public static String millisOrSeconds(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        return ms % 1000 == 0 ? (ms / 1000) + " s" : seconds(d);
    }

    /**
     * "0.2 s", "1.5 s", "120.0 s": seconds with one decimal, whatever the size.
     *
     * @param d the duration to write
     * @return {@code d} in seconds
     */
    public static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
