package org.cudaipc4j.launch;

import java.util.ArrayList;
import java.util.List;

/**
 * Slurm's compressed host lists, as in {@code SLURM_JOB_NODELIST}: names separated by commas, each with any number
 * of bracketed groups of numbers and ranges, such as {@code node[01-04,07]} or {@code rack[1-2]-n[01-02],login}.
 *
 * <p>As Slurm's {@code hostlist.c} expands them: a range keeps the zero padding of its low end (its width is the low
 * end's number of digits: {@code [08-10]} gives {@code 08 09 10}, {@code [8-10]} gives {@code 8 9 10}); numbers and
 * ranges come in the order written; a name with several brackets gives every combination, the first bracket
 * changing slowest ({@code r[1-2]n[1-2]}: {@code r1n1 r1n2 r2n1 r2n2}). Stricter than Slurm, which never writes
 * such lists: only commas separate names, and an empty name, a range without a high end ({@code [1-]}) and
 * whitespace are refused.
 *
 * <p>A list is refused, in one line, when malformed (unbalanced or nested brackets, an empty group, a reversed
 * range, a character that no host name has) or when it would expand to more than {@value #MAX_NAMES} names or
 * {@value #MAX_CHARACTERS} characters, so that a hostile value cannot exhaust memory.
 */
public final class SlurmNodeList {
    private SlurmNodeList() {}

    /** The most names a list may expand to. */
    public static final int MAX_NAMES = 1_000_000;
    /** The most characters (all names together) a list may expand to. */
    public static final long MAX_CHARACTERS = 64L * 1024 * 1024;
    /** Longer numbers could overflow a {@code long}; no host list has them. */
    private static final int MAX_DIGITS = 18;

    /**
     * Every host of {@code list}, in Slurm's order.
     *
     * @param list a compressed host list
     * @return the host names
     * @throws IllegalArgumentException in one line naming the list and what is wrong with it
     */
    public static List<String> expand(String list) {
        List<List<Object>> names = parseOrThrow(list);
        List<String> hosts = new ArrayList<>();
        for (List<Object> name : names) {
            expandInto(name, hosts);
        }
        return hosts;
    }

    /**
     * The first host of {@code list}, without expanding the others (the whole list is still checked).
     *
     * @param list a compressed host list
     * @return its first host name
     * @throws IllegalArgumentException as {@link #expand} does
     */
    public static String first(String list) {
        List<Object> name = parseOrThrow(list).getFirst();
        StringBuilder b = new StringBuilder();
        for (Object part : name) {
            if (part instanceof String literal) {
                b.append(literal);
            } else {
                Range r = cast(part).getFirst();
                b.append(r.format(r.lo()));
            }
        }
        return b.toString();
    }

    /** What is wrong with {@code list}, or {@code null} when it is a valid list. */
    static String problem(String list) {
        try {
            parse(list);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static List<List<Object>> parseOrThrow(String list) {
        try {
            return parse(list);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Slurm node list " + Show.value(list) + ": " + e.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Range> cast(Object part) {
        return (List<Range>) part;
    }

    /** One number or range of a bracket, {@code lo} to {@code hi}, printed at least {@code width} digits wide. */
    private record Range(long lo, long hi, int width) {
        long count() {
            return hi - lo + 1;
        }

        String format(long n) {
            String digits = Long.toString(n);
            return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
        }

        int maxLength() {
            return Math.max(width, Long.toString(hi).length());
        }
    }

    /**
     * Each name as a list of parts: a {@code String} for literal text, a {@code List<Range>} for a bracket. Checks
     * the syntax and the size of the expansion; the message is the problem only.
     */
    private static List<List<Object>> parse(String list) {
        if (list == null || list.isEmpty()) {
            throw new IllegalArgumentException("empty; expected host names such as node[01-04,07]");
        }
        List<List<Object>> names = new ArrayList<>();
        long totalNames = 0;
        long totalChars = 0;
        int i = 0;
        int n = list.length();
        while (true) {
            int start = i;
            List<Object> parts = new ArrayList<>();
            StringBuilder literal = new StringBuilder();
            long count = 1;
            long length = 0;
            while (i < n && list.charAt(i) != ',') {
                char c = list.charAt(i);
                if (c == '[') {
                    int close = list.indexOf(']', i + 1);
                    int nested = list.indexOf('[', i + 1);
                    if (close < 0 || (nested >= 0 && nested < close)) {
                        throw new IllegalArgumentException("'[' at position " + i + " has no matching ']'");
                    }
                    if (!literal.isEmpty()) {
                        parts.add(literal.toString());
                        length += literal.length();
                        literal.setLength(0);
                    }
                    List<Range> ranges = ranges(list.substring(i + 1, close), i + 1);
                    long bracketCount = 0;
                    int maxLength = 0;
                    for (Range r : ranges) {
                        bracketCount += r.count();
                        maxLength = Math.max(maxLength, r.maxLength());
                        if (bracketCount > MAX_NAMES) {
                            break;
                        }
                    }
                    count = bracketCount > MAX_NAMES || count > MAX_NAMES ? MAX_NAMES + 1L : count * bracketCount;
                    length += maxLength;
                    parts.add(ranges);
                    i = close + 1;
                } else if (c == ']') {
                    throw new IllegalArgumentException("']' at position " + i + " has no matching '['");
                } else if (Character.isLetterOrDigit(c) && c < 0x80 || c == '-' || c == '.' || c == '_') {
                    literal.append(c);
                    i++;
                } else {
                    throw new IllegalArgumentException("character " + Show.value(String.valueOf(c)) + " at position "
                            + i + " is not part of a host name");
                }
            }
            if (i == start) {
                throw new IllegalArgumentException("empty name at position " + i);
            }
            if (!literal.isEmpty()) {
                parts.add(literal.toString());
                length += literal.length();
            }
            totalNames += count;
            if (totalNames > MAX_NAMES) {
                throw new IllegalArgumentException("expands to more than " + MAX_NAMES + " names");
            }
            totalChars += count * length;
            if (totalChars > MAX_CHARACTERS) {
                throw new IllegalArgumentException("expands to more than " + MAX_CHARACTERS + " characters");
            }
            names.add(parts);
            if (i == n) {
                return names;
            }
            i++; // the comma
            if (i == n) {
                throw new IllegalArgumentException("empty name at position " + i);
            }
        }
    }

    /** The comma-separated numbers and ranges of one bracket, which starts at {@code offset} of the list. */
    private static List<Range> ranges(String inside, int offset) {
        if (inside.isEmpty()) {
            throw new IllegalArgumentException("empty brackets at position " + (offset - 1));
        }
        List<Range> ranges = new ArrayList<>();
        int at = offset;
        for (String item : inside.split(",", -1)) {
            int dash = item.indexOf('-');
            String lo = dash < 0 ? item : item.substring(0, dash);
            String hi = dash < 0 ? item : item.substring(dash + 1);
            if (!isNumber(lo) || !isNumber(hi)) {
                throw new IllegalArgumentException("range " + Show.value(item) + " at position " + at
                        + ": expected a number or two numbers joined by '-'");
            }
            long low = Long.parseLong(lo);
            long high = Long.parseLong(hi);
            if (low > high) {
                throw new IllegalArgumentException("range " + Show.value(item) + " at position " + at
                        + " is reversed");
            }
            ranges.add(new Range(low, high, lo.length()));
            at += item.length() + 1;
        }
        return ranges;
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty() || s.length() > MAX_DIGITS) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Every combination of {@code name}'s brackets, the first bracket changing slowest. */
    private static void expandInto(List<Object> name, List<String> out) {
        int brackets = 0;
        for (Object part : name) {
            if (!(part instanceof String)) {
                brackets++;
            }
        }
        // an odometer over the brackets: for each, which range and which number in it
        List<List<Range>> groups = new ArrayList<>(brackets);
        for (Object part : name) {
            if (!(part instanceof String)) {
                groups.add(cast(part));
            }
        }
        int[] range = new int[brackets];
        long[] value = new long[brackets];
        for (int b = 0; b < brackets; b++) {
            value[b] = groups.get(b).getFirst().lo();
        }
        StringBuilder s = new StringBuilder();
        while (true) {
            s.setLength(0);
            int b = 0;
            for (Object part : name) {
                if (part instanceof String literal) {
                    s.append(literal);
                } else {
                    s.append(groups.get(b).get(range[b]).format(value[b]));
                    b++;
                }
            }
            out.add(s.toString());
            // advance the last bracket first
            int k = brackets - 1;
            while (k >= 0) {
                Range r = groups.get(k).get(range[k]);
                if (value[k] < r.hi()) {
                    value[k]++;
                    break;
                }
                if (range[k] + 1 < groups.get(k).size()) {
                    range[k]++;
                    value[k] = groups.get(k).get(range[k]).lo();
                    break;
                }
                range[k] = 0;
                value[k] = groups.get(k).getFirst().lo();
                k--;
            }
            if (k < 0) {
                return;
            }
        }
    }
}
