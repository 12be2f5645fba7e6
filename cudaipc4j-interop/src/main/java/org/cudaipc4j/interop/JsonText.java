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
    /**
     * Where the cursor is, for a refusal's field name, kept as it goes rather than written out for every value: at
     * each level of nesting from 1, the member's key (an object's) or the element's index (an array's; key null).
     */
    private final String[] keys = new String[MAX_DEPTH + 1];
    private final int[] indexes = new int[MAX_DEPTH + 1];

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
        Map<String, Object> o = (Map<String, Object>) p.value(0, nullValue);
        p.skipSpace();
        if (p.at < json.length()) {
            throw new DescriptorFormatException("descriptor: text after the JSON object " + p.where());
        }
        return o;
    }

    private Object value(int depth, Object nullValue) {
        skipSpace();
        char c = peek();
        switch (c) {
            case '{', '[' -> {
                if (depth == MAX_DEPTH) {
                    throw new DescriptorFormatException("descriptor: JSON nested deeper than " + MAX_DEPTH
                            + " levels " + where());
                }
                return c == '{' ? object(depth + 1, nullValue) : array(depth + 1, nullValue);
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

    private Map<String, Object> object(int depth, Object nullValue) {
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
            keys[depth] = name;
            if (m.containsKey(name)) {
                throw new DescriptorFormatException("descriptor: field '" + JsonValues.clip(field(depth)) + "' is"
                        + " given twice");
            }
            skipSpace();
            expect(':');
            m.put(name, value(depth, nullValue));
            skipSpace();
            if (peek() == '}') {
                at++;
                return m;
            }
            expect(',');
        }
    }

    private List<Object> array(int depth, Object nullValue) {
        List<Object> l = new ArrayList<>();
        at++;
        skipSpace();
        if (peek() == ']') {
            at++;
            return l;
        }
        while (true) {
            keys[depth] = null;
            indexes[depth] = l.size();
            l.add(value(depth, nullValue));
            skipSpace();
            if (peek() == ']') {
                at++;
                return l;
            }
            expect(',');
        }
    }

    private String string() {
        at++;
        // Most strings hold neither an escape nor a control character: cut out whole.
        for (int i = at; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                String whole = text.substring(at, i);
                at = i + 1;
                return whole;
            }
            if (c == '\\' || c < 0x20) {
                break;
            }
        }
        StringBuilder s = new StringBuilder();
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

    /** {@return the field at nesting level {@code depth}, as {@code a.b[2].c}} */
    private String field(int depth) {
        StringBuilder f = new StringBuilder();
        for (int level = 1; level <= depth; level++) {
            if (keys[level] == null) {
                f.append('[').append(indexes[level]).append(']');
            } else {
                f.append(f.isEmpty() ? "" : ".").append(keys[level]);
            }
        }
        return f.toString();
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
