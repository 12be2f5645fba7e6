package org.cudaipc4j.coord;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One value's kind in a {@link RecordCodec} body, and how it is written and read: an enum with its constants, a list
 * with its element, a record with its components, its {@link RecordCodec.Maker} and its {@link RecordCodec.Parts}.
 */
final class RecordPart {
    /** What a value is. */
    enum Kind { INT, LONG, BOOLEAN, ENUM, TEXT, PATH, DURATION, LIST, RECORD }

    private final Kind kind;
    private final Class<?> type;
    private final Object[] constants;
    private final RecordPart element;
    private final RecordComponent[] components;
    private final RecordPart[] parts;
    /** How a record of this part is made and taken apart. */
    private final RecordCodec.Nested<?> record;
    /**
     * Where the value lies in its record ({@code ChildSettings.run.devices[]}), for messages: named once here, so
     * that no read or write builds a name (a child's first string concatenations each cost it a link).
     */
    private final String where;

    private RecordPart(Kind kind, Class<?> type, Object[] constants, RecordPart element, RecordComponent[] components,
            RecordPart[] parts, RecordCodec.Nested<?> record, String where) {
        this.kind = kind;
        this.type = type;
        this.constants = constants;
        this.element = element;
        this.components = components;
        this.parts = parts;
        this.record = record;
        this.where = where;
    }

    /**
     * The part of a value of {@code type}.
     *
     * @throws IllegalArgumentException when it is of a kind not written, or a record without a maker
     */
    static RecordPart of(Type type, Map<Class<?>, RecordCodec.Nested<?>> records, String where) {
        if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
            RecordPart element = of(p.getActualTypeArguments()[0], records, where + "[]");
            return new RecordPart(Kind.LIST, List.class, null, element, null, null, null, where);
        }
        Kind kind = type == int.class || type == Integer.class ? Kind.INT
                : type == long.class || type == Long.class ? Kind.LONG
                : type == boolean.class || type == Boolean.class ? Kind.BOOLEAN
                : type == String.class ? Kind.TEXT
                : type == Path.class ? Kind.PATH
                : type == Duration.class ? Kind.DURATION
                : type instanceof Class<?> c && c.isEnum() ? Kind.ENUM
                : type instanceof Class<?> c && c.isRecord() ? Kind.RECORD
                : null;
        if (kind == null) {
            throw new IllegalArgumentException("record codec: " + where + " is a " + type.getTypeName()
                    + ", not a kind it writes");
        }
        Class<?> c = (Class<?>) type;
        if (kind == Kind.ENUM && c.getEnumConstants().length > 256) {
            throw new IllegalArgumentException("record codec: " + where + " has more than 256 constants");
        }
        if (kind != Kind.RECORD) {
            return new RecordPart(kind, c, kind == Kind.ENUM ? c.getEnumConstants() : null, null, null, null, null,
                    where);
        }
        RecordCodec.Nested<?> record = records.get(c);
        if (record == null) {
            throw new IllegalArgumentException("record codec: no maker for " + where + " (" + c.getName() + ")");
        }
        RecordComponent[] components = c.getRecordComponents();
        RecordPart[] parts = new RecordPart[components.length];
        for (int i = 0; i < components.length; i++) {
            parts[i] = of(components[i].getGenericType(), records, where + "." + components[i].getName());
        }
        return new RecordPart(Kind.RECORD, c, null, null, components, parts, record, where);
    }

    /** Appends the canonical description of this part's shape: names, kinds, enum constants, in order. */
    void describe(StringBuilder out) {
        out.append(kind);
        switch (kind) {
            case ENUM -> {
                out.append(' ').append(type.getSimpleName()).append('[');
                for (Object constant : constants) {
                    out.append(((Enum<?>) constant).name()).append(',');
                }
                out.append(']');
            }
            case LIST -> {
                out.append('<');
                element.describe(out);
                out.append('>');
            }
            case RECORD -> {
                out.append(' ').append(type.getSimpleName()).append('(');
                for (int i = 0; i < parts.length; i++) {
                    out.append(components[i].getName()).append(':');
                    parts[i].describe(out);
                    out.append(',');
                }
                out.append(')');
            }
            default -> { }
        }
    }

    void write(Object value, RecordCodec.Out out) {
        if (value == null && kind != Kind.TEXT && kind != Kind.PATH) {
            throw new IllegalArgumentException(where + " is null");
        }
        switch (kind) {
            case INT -> out.reserve(4).putInt((Integer) value);
            case LONG -> out.reserve(8).putLong((Long) value);
            case BOOLEAN -> out.reserve(1).put((byte) ((Boolean) value ? 1 : 0));
            case ENUM -> out.reserve(1).put((byte) ((Enum<?>) value).ordinal());
            case TEXT, PATH -> writeText(value == null ? null : value.toString(), out);
            case DURATION -> out.reserve(12).putLong(((Duration) value).getSeconds())
                    .putInt(((Duration) value).getNano());
            case LIST -> {
                List<?> list = (List<?>) value;
                out.reserve(4).putInt(list.size());
                for (Object item : list) {
                    element.write(item, out);
                }
            }
            case RECORD -> {
                Object[] values = takeApart(value);
                for (int i = 0; i < parts.length; i++) {
                    parts[i].write(values[i], out);
                }
            }
        }
    }

    private static void writeText(String text, RecordCodec.Out out) {
        if (text == null) {
            out.reserve(4).putInt(-1);
            return;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.reserve(4 + bytes.length).putInt(bytes.length).put(bytes);
    }

    @SuppressWarnings("unchecked")
    private Object[] takeApart(Object value) {
        Object[] values = ((RecordCodec.Parts<Object>) record.parts()).of(value);
        if (values == null || values.length != parts.length) {
            throw new IllegalStateException("record codec: the parts of " + type.getName() + " gave "
                    + (values == null ? "none" : values.length) + " of its " + parts.length + " components");
        }
        return values;
    }

    Object read(ByteBuffer in) {
        return switch (kind) {
            case INT -> in.getInt();
            case LONG -> in.getLong();
            case BOOLEAN -> switch (in.get()) {
                case 0 -> false;
                case 1 -> true;
                default -> throw new IllegalArgumentException(where + ": a boolean other than 0 or 1");
            };
            case ENUM -> {
                int code = in.get() & 0xff;
                if (code >= constants.length) {
                    throw new IllegalArgumentException(where + ": unknown code " + code + " of "
                            + type.getSimpleName());
                }
                yield constants[code];
            }
            case TEXT -> readText(in, where);
            case PATH -> readPath(in, where);
            case DURATION -> readDuration(in, where);
            case LIST -> readList(in);
            case RECORD -> readRecord(in);
        };
    }

    private static String readText(ByteBuffer in, String where) {
        int length = in.getInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException(where + ": text length " + length + ", " + in.remaining()
                    + " bytes left");
        }
        ByteBuffer bytes = in.slice(in.position(), length);
        in.position(in.position() + length);
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(where + ": text not in UTF-8");
        }
    }

    private static Path readPath(ByteBuffer in, String where) {
        String text = readText(in, where);
        try {
            return text == null ? null : Path.of(text);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(where + ": not a path: " + e.getMessage());
        }
    }

    private static Duration readDuration(ByteBuffer in, String where) {
        long seconds = in.getLong();
        int nanos = in.getInt();
        if (nanos < 0 || nanos > 999_999_999) {
            throw new IllegalArgumentException(where + ": nanoseconds " + nanos + " out of range");
        }
        return Duration.ofSeconds(seconds, nanos);
    }

    private List<Object> readList(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || count > in.remaining()) { // every element takes a byte at least
            throw new IllegalArgumentException(where + ": count " + count + ", " + in.remaining() + " bytes left");
        }
        List<Object> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(element.read(in));
        }
        return list;
    }

    private Object readRecord(ByteBuffer in) {
        Object[] values = new Object[parts.length];
        for (int i = 0; i < parts.length; i++) {
            values[i] = parts[i].read(in);
        }
        RecordCodec.Components given = new RecordCodec.Components(values);
        Object made;
        try {
            made = record.maker().make(given);
        } catch (IllegalArgumentException | NullPointerException e) { // the record's own checks
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
        given.checkAllTaken(type);
        return made;
    }
}
