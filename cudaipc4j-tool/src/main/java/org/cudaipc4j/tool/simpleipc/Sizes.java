package org.cudaipc4j.tool.simpleipc;

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

    /** Parses a duration: a number with ms, s (default), m or h. */
    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("invalid duration '" + text + "' (expected e.g. 500ms, 30s, 2m)");
        }
        long value = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(value);
            case "m" -> Duration.ofMinutes(value);
            case "h" -> Duration.ofHours(value);
            default -> Duration.ofSeconds(value);
        };
    }

    /** Human-readable binary size: 64 MiB, 1 GiB, 4095 B. */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + " " + units[u];
    }
}
