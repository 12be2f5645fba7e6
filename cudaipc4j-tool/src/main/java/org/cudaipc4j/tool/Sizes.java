package org.cudaipc4j.tool;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing and printing of byte sizes ({@code 64M}, {@code 1G}, {@code 4095}) and durations ({@code 30s}). */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMGT]?)(I?B)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?", Pattern.CASE_INSENSITIVE);

    private Sizes() {}

    /** Parses a byte count with an optional binary suffix K, M, G or T (also KiB, MB...: all powers of 1024). */
    public static long parseBytes(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("invalid size '" + text + "' (expected e.g. 4096, 64M, 1G)");
        }
        int shift = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return value << shift;
    }

    /**
     * The longest duration a setting takes: a hundred years. Every deadline is {@code System.nanoTime()} plus a
     * duration in nanoseconds, which must not overflow a long (about 292 years from the clock's origin).
     */
    public static final Duration LONGEST = Duration.ofHours(876_000);

    /** Parses a duration: a whole number with ms, s (the default), m or h, up to {@link #LONGEST}. */
    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("invalid duration '" + text + "' (expected e.g. 500ms, 30s, 2m)");
        }
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        try {
            Duration d = switch (unit) {
                case "ms" -> Duration.ofMillis(Long.parseLong(m.group(1)));
                case "m" -> Duration.ofMinutes(Long.parseLong(m.group(1)));
                case "h" -> Duration.ofHours(Long.parseLong(m.group(1)));
                default -> Duration.ofSeconds(Long.parseLong(m.group(1)));
            };
            if (d.compareTo(LONGEST) <= 0) {
                return d;
            }
        } catch (ArithmeticException | NumberFormatException e) {
            // too long: below
        }
        throw new IllegalArgumentException("duration '" + text + "' is too long (at most " + LONGEST.toHours()
                + "h, a hundred years)");
    }

    /**
     * Human-readable binary size, the one way sizes are written everywhere: exact as typed where a unit divides it
     * (4095 B, 1025 KiB, 64 MiB, 1 TiB), else in the largest unit that fits with one decimal (23.5 GiB).
     */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int exact = 0;
        while (exact < units.length - 1 && bytes % (1L << (10 * (exact + 1))) == 0
                && Math.abs(bytes) >= 1L << (10 * (exact + 1))) {
            exact++;
        }
        long inExact = bytes / (1L << (10 * exact));
        if (Math.abs(inExact) < 10240) {
            return inExact + " " + units[exact];
        }
        int u = 0;
        while (u < units.length - 1 && Math.abs(bytes) >= 1L << (10 * (u + 1))) {
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", bytes / (double) (1L << (10 * u)), units[u]);
    }
}
