package org.cudaipc4j.interop;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * JSON text as the descriptor reader sees it: one object parsed by {@link JsonText} into maps, lists, strings,
 * number literals, booleans and {@link #NULL}, and the typed looks at its fields that refuse, in one line naming the
 * field, what is missing or of the wrong type. A value of the input shown in a message is escaped as the writer
 * escapes strings, so a message never carries a control character of its input.
 */
final class JsonValues {
    private static final HexFormat HEX = HexFormat.of();
    /** JSON's {@code null}, told apart from an absent field. */
    static final Object NULL = new Object();

    private JsonValues() {}

    /** Parses one JSON object ({@link JsonText}). */
    static Map<String, Object> parseObject(String json) {
        if (json == null) {
            throw new DescriptorFormatException("descriptor: no text");
        }
        return JsonText.parseObject(json, NULL);
    }

    static Object required(Map<String, Object> o, String field, String prefix) {
        Object e = o.get(field);
        if (e == null) {
            throw new DescriptorFormatException("descriptor: field '" + prefix + field + "' is missing");
        }
        return e;
    }

    /** The field, or null when absent or null. */
    static Object optional(Map<String, Object> o, String field) {
        Object e = o.get(field);
        return e == NULL ? null : e;
    }

    static String string(Object e, String field) {
        if (!(e instanceof String s)) {
            throw wrongType(field, "a string", e);
        }
        return s;
    }

    static boolean bool(Object e, String field) {
        if (!(e instanceof Boolean b)) {
            throw wrongType(field, "true or false", e);
        }
        return b;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object e, String field) {
        if (!(e instanceof Map<?, ?>)) {
            throw wrongType(field, "an object", e);
        }
        return (Map<String, Object>) e;
    }

    static long nonNegative(Object e, String field) {
        if (!(e instanceof JsonText.Num n) || !isInteger(n.literal())) {
            throw wrongType(field, "an integer", e);
        }
        long v;
        try {
            v = Long.parseLong(n.literal());
        } catch (NumberFormatException x) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' is out of range (0 to 2^63 - 1): "
                    + clip(n.literal()));
        }
        if (v < 0) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' must be >= 0, got " + v);
        }
        return v;
    }

    /** {@return whether a number as {@link JsonText} read it (JSON's grammar) is an integer: no fraction, no exponent} */
    private static boolean isInteger(String literal) {
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
            if (c == '.' || c == 'e' || c == 'E') {
                return false;
            }
        }
        return true;
    }

    static long[] longArray(Object e, String field) {
        if (!(e instanceof List<?> a)) {
            throw wrongType(field, "an array of integers", e);
        }
        long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = nonNegative(a.get(i), field + "[" + i + "]");
        }
        return out;
    }

    static byte[] hex64(Object e, String field) {
        return hex(e, field, 64);
    }

    /** Hex of {@code length} bytes (any positive length when {@code length} is negative). */
    static byte[] hex(Object e, String field, int length) {
        String s = string(e, field);
        if (s.length() % 2 != 0 || (length >= 0 && s.length() != 2 * length) || s.isEmpty()) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' must be "
                    + (length >= 0 ? length + " bytes (" + 2 * length + " hex digits)" : "an even number of hex digits")
                    + ", got " + s.length() + " characters");
        }
        try {
            return HEX.parseHex(s);
        } catch (IllegalArgumentException x) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' is not hex: '" + clip(s) + "'");
        }
    }

    private static DescriptorFormatException wrongType(String field, String expected, Object got) {
        String shown = got == NULL ? "null" : got instanceof String s ? shown(s) : got instanceof Map<?, ?>
                ? "an object" : got instanceof List<?> ? "an array" : cut(String.valueOf(got));
        return new DescriptorFormatException("descriptor: field '" + field + "' must be " + expected + ", got "
                + shown);
    }

    /** {@return a string of the input in double quotes, escaped as the writer writes it, at most 60 characters} */
    static String shown(String s) {
        return cut(DescriptorJsonWriter.quoted(s));
    }

    /** {@return a string of the input escaped as the writer escapes it (no quotes), at most 60 characters} */
    static String clip(String s) {
        return cut(DescriptorJson.visible(s));
    }

    private static String cut(String s) {
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }
}
