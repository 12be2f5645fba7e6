package org.cudaipc4j.interop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The descriptor's JSON grammar (RFC 8259, strict), parsed the same way as the Python reader's
 * ({@code cudaipc4j.json_text}): the same first error at the same place, so both refuse bad text with the same line
 * ({@code docs/interop-format.md}, "Rules of the text"). One object; objects and arrays nest at most
 * {@value #MAX_DEPTH} deep; a key given twice is refused where it appears; numbers are kept as written.
 */
final class JsonText {
    /** The deepest nesting of objects and arrays read: a descriptor needs 3, unknown fields get room beside it. */
    static final int MAX_DEPTH = 64;

    private final String text;
    private int at;

    private JsonText(String text) {
        this.text = text;
    }

    /** A number as written. */
    record Num(String literal) {
        @Override
        public String toString() {
            return literal;
        }
    }

    /** Parses one JSON object into maps, lists, strings, {@link Num}s, booleans and {@code nullValue}. */
    static Map<String, Object> parseObject(String json, Object nullValue) {
        JsonText p = new JsonText(json);
        p.skipSpace();
        if (p.at < json.length() && json.charAt(p.at) != '{') {
            throw new DescriptorFormatException("descriptor: not a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> o = (Map<String, Object>) p.value("", 0, nullValue);
        p.skipSpace();
        if (p.at < json.length()) {
            throw new DescriptorFormatException("descriptor: text after the JSON object " + p.where());
        }
        return o;
    }

    private Object value(String path, int depth, Object nullValue) {
        skipSpace();
        char c = peek();
        switch (c) {
            case '{', '[' -> {
                if (depth == MAX_DEPTH) {
                    throw new DescriptorFormatException("descriptor: JSON nested deeper than " + MAX_DEPTH
                            + " levels " + where());
                }
                return c == '{' ? object(path, depth + 1, nullValue) : array(path, depth + 1, nullValue);
            }
            case '"' -> {
                return string();
            }
            case 't' -> {
                return literal("true", Boolean.TRUE);
            }
            case 'f' -> {
                return literal("false", Boolean.FALSE);
            }
            case 'n' -> {
                return literal("null", nullValue);
            }
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw invalid();
            }
        }
    }

    private Map<String, Object> object(String path, int depth, Object nullValue) {
        Map<String, Object> m = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (peek() == '}') {
            at++;
            return m;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw invalid();
            }
            String name = string();
            String field = path.isEmpty() ? name : path + "." + name;
            if (m.containsKey(name)) {
                throw new DescriptorFormatException("descriptor: field '" + JsonValues.clip(field) + "' is given"
                        + " twice");
            }
            skipSpace();
            expect(':');
            m.put(name, value(field, depth, nullValue));
            skipSpace();
            if (peek() == '}') {
                at++;
                return m;
            }
            expect(',');
        }
    }

    private List<Object> array(String path, int depth, Object nullValue) {
        List<Object> l = new ArrayList<>();
        at++;
        skipSpace();
        if (peek() == ']') {
            at++;
            return l;
        }
        while (true) {
            l.add(value(path + "[" + l.size() + "]", depth, nullValue));
            skipSpace();
            if (peek() == ']') {
                at++;
                return l;
            }
            expect(',');
        }
    }

    private String string() {
        StringBuilder s = new StringBuilder();
        at++;
        while (true) {
            char c = peek();
            if (c == '"') {
                at++;
                return s.toString();
            }
            if (c < 0x20) { // a control character, or the end of the text
                throw invalid();
            }
            if (c != '\\') {
                s.append(c);
                at++;
                continue;
            }
            int backslash = at++;
            char e = peek();
            switch (e) {
                case '"', '\\', '/' -> s.append(e);
                case 'b' -> s.append('\b');
                case 'f' -> s.append('\f');
                case 'n' -> s.append('\n');
                case 'r' -> s.append('\r');
                case 't' -> s.append('\t');
                case 'u' -> {
                    int v = 0;
                    for (int i = 1; i <= 4; i++) {
                        int d = at + i < text.length() ? Character.digit(text.charAt(at + i), 16) : -1;
                        if (d < 0 || text.charAt(at + i) > 'f') { // ASCII hex digits only
                            at = backslash;
                            throw invalid();
                        }
                        v = v * 16 + d;
                    }
                    s.append((char) v);
                    at += 4;
                }
                default -> {
                    at = backslash;
                    throw invalid();
                }
            }
            at++;
        }
    }

    private Num number() {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        if (peek() == '0') {
            at++;
        } else {
            digits();
        }
        if (peek() == '.') {
            at++;
            digits();
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            digits();
        }
        return new Num(text.substring(start, at));
    }

    /** One or more ASCII digits. */
    private void digits() {
        if (peek() < '0' || peek() > '9') {
            throw invalid();
        }
        while (peek() >= '0' && peek() <= '9') {
            at++;
        }
    }

    private Object literal(String word, Object v) {
        if (!text.startsWith(word, at)) {
            throw invalid();
        }
        at += word.length();
        return v;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw invalid();
        }
        at++;
    }

    /** The character at the cursor, or 0 at the end of the text. */
    private char peek() {
        return at < text.length() ? text.charAt(at) : 0;
    }

    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private DescriptorFormatException invalid() {
        return new DescriptorFormatException("descriptor: not valid JSON " + where());
    }

    /** {@code (at line L column C)}: lines end at {@code \n}; the column counts code points, from 1. */
    private String where() {
        int end = Math.min(at, text.length());
        int lineStart = text.lastIndexOf('\n', end - 1) + 1;
        long line = text.chars().limit(end).filter(ch -> ch == '\n').count() + 1;
        return "(at line " + line + " column " + (text.codePointCount(lineStart, end) + 1) + ")";
    }
}
