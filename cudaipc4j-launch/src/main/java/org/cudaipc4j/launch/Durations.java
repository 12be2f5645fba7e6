package org.cudaipc4j.launch;

import java.time.Duration;
import java.util.Locale;

/** Durations as the messages print them: {@code 60 s}, {@code 1.5 s}, {@code 200 ms}. */
final class Durations {
    private Durations() {}

    static String text(Duration d) {
        long millis = d.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + " s";
        }
        return seconds(d.toNanos());
    }

    /** Seconds with one decimal: {@code 3.0 s}. */
    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
