package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.Locale;

/** How the coordination library words a duration in its messages. */
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
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return ms % 1000 == 0 ? (ms / 1000) + " s" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return s % 60 == 0 ? (s / 60) + " min" : (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3600) + " h" + (s % 3600 / 60 == 0 ? "" : " " + (s % 3600 / 60) + " min");
    }
}
