package org.cudaipc4j.interop;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.EOFException;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JSON text as the descriptor reader sees it: one object parsed by Gson's strict tokenizer into maps, lists, strings,
 * number literals, booleans and {@link #NULL}, and the typed looks at its fields that refuse, in one line naming the
 * field, what is missing or of the wrong type.
 */
final class JsonValues {
    private static final HexFormat HEX = HexFormat.of();
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");
    private static final Pattern WHERE = Pattern.compile("line (\\d+) column (\\d+)");
    /** JSON's {@code null}, told apart from an absent field. */
    static final Object NULL = new Object();

    private JsonValues() {}

    /** Parses one JSON object with Gson's strict tokenizer into maps, lists, strings, number literals, booleans. */
    static Map<String, Object> parseObject(String json) {
        if (json == null) {
            throw new DescriptorFormatException("descriptor: no text");
        }
        try {
            JsonReader r = new JsonReader(new StringReader(json));
            r.setStrictness(Strictness.STRICT);
            if (r.peek() != JsonToken.BEGIN_OBJECT) {
                throw new DescriptorFormatException("descriptor: not a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> o = (Map<String, Object>) value(r, "");
            boolean end;
            try {
                end = r.peek() == JsonToken.END_DOCUMENT;
            } catch (IOException e) {
                end = false;
            }
            if (!end) {
                throw new DescriptorFormatException("descriptor: text after the JSON object");
            }
            return o;
        } catch (IOException | IllegalStateException | NumberFormatException e) {
            Matcher at = WHERE.matcher(String.valueOf(e.getMessage()));
            throw new DescriptorFormatException("descriptor: not valid JSON" + (at.find() ? " (at line " + at.group(1)
                    + " column " + at.group(2) + ")" : e instanceof EOFException ? " (it ends early)" : ""));
        }
    }

    private static Object value(JsonReader r, String path) throws IOException {
        switch (r.peek()) {
            case BEGIN_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                r.beginObject();
                while (r.hasNext()) {
                    String name = r.nextName();
                    String at = path.isEmpty() ? name : path + "." + name;
                    if (m.containsKey(name)) {
                        throw new DescriptorFormatException("descriptor: field '" + clip(at) + "' is given twice");
                    }
                    m.put(name, value(r, at));
                }
                r.endObject();
                return m;
            }
            case BEGIN_ARRAY -> {
                List<Object> l = new ArrayList<>();
                r.beginArray();
                while (r.hasNext()) {
                    l.add(value(r, path + "[" + l.size() + "]"));
                }
                r.endArray();
                return l;
            }
            case STRING -> {
                return r.nextString();
            }
            case NUMBER -> {
                return new Num(r.nextString());
            }
            case BOOLEAN -> {
                return r.nextBoolean();
            }
            case NULL -> {
                r.nextNull();
                return NULL;
            }
            default -> throw new DescriptorFormatException("descriptor: unexpected " + r.peek() + " at '" + path + "'");
        }
    }

    /** A number as written. */
    private record Num(String literal) {
        @Override
        public String toString() {
            return literal;
        }
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
        if (!(e instanceof Num n) || !INTEGER.matcher(n.literal()).matches()) {
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
        String shown = got == NULL ? "null" : got instanceof String s ? "\"" + s + "\"" : got instanceof Map<?, ?>
                ? "an object" : got instanceof List<?> ? "an array" : String.valueOf(got);
        return new DescriptorFormatException("descriptor: field '" + field + "' must be " + expected + ", got "
                + clip(shown));
    }

    static String clip(String s) {
        String one = s.replaceAll("[\\p{Cntrl}]", " ");
        return one.length() > 60 ? one.substring(0, 57) + "..." : one;
    }
}
