package org.cudaipc4j.launch;

/** A value from the environment as an error message shows it: on one line, and not too long. */
final class Show {
    private Show() {}

    /** Values longer than this are cut, with {@code ...} after them. */
    static final int MAX = 100;

    /**
     * {@code value} in single quotes; characters outside printable ASCII become {@code ?} so the message stays one
     * line, and a long value is cut after {@value #MAX} characters. The Python side ({@code launch.py}) shows values
     * the same way.
     */
    static String value(String value) {
        if (value == null) {
            return "(not set)";
        }
        StringBuilder b = new StringBuilder("'");
        for (int i = 0; i < value.length() && i < MAX; i++) {
            char c = value.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        if (value.length() > MAX) {
            b.append("...");
        }
        return b.append('\'').toString();
    }
}
