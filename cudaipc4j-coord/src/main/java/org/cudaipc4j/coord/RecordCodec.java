package org.cudaipc4j.coord;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A record as one frame of bytes and back, over its components, so that a process hands typed values to a process it
 * started ({@link Supervisor#startWithInput}, {@link StarterInput}) without encoding them field by field. A frame is
 * the {@link #HEADER} (magic {@code "C4RC"}, {@link #VERSION}, the record's shape fingerprint, the body's length;
 * big-endian) and the body: each component in declaration order, big-endian: an {@code int} 4 bytes, a {@code long}
 * 8, a {@code boolean} 1 (0 or 1), an enum 1 (its ordinal), a {@link String} or {@link Path} its UTF-8 length (4;
 * -1 for null) and bytes, a {@link Duration} its seconds (8) and nanoseconds (4), a {@link List} its count (4) and
 * elements, a record its components. The shape (record, component and enum constant names, and the kinds) is
 * fingerprinted into the header: a reader of another build, whose ordinals might mean other constants, refuses the
 * frame instead of misreading it. Every malformed frame is refused with one {@link IllegalArgumentException}.
 *
 * @param <R> the record type
 */
public final class RecordCodec<R extends Record> {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    /** A frame's header. */
    public static final StructLayout HEADER = MemoryLayout.structLayout(INT.withName("magic"),
            INT.withName("version"), LONG.withName("shape"), INT.withName("length"));
    /** {@code "C4RC"}. */
    public static final int MAGIC = 0x43345243;
    /** The frame format's version; a reader refuses any other. */
    public static final int VERSION = 1;
    /** The longest body a reader accepts. */
    public static final int MAX_BODY = 1 << 20;

    private static final VarHandle MAGIC_FIELD = field("magic");
    private static final VarHandle VERSION_FIELD = field("version");
    private static final VarHandle SHAPE_FIELD = field("shape");
    private static final VarHandle LENGTH_FIELD = field("length");

    private final Part root;
    private final long shape;
    private final String name;

    private RecordCodec(Part root, String name) {
        this.root = root;
        this.name = name;
        StringBuilder canonical = new StringBuilder();
        root.describe(canonical);
        this.shape = LayoutFingerprint.of(canonical.toString());
    }

    /**
     * {@return the codec of {@code type}}
     *
     * @param lookup a lookup with access to the record's and its nested records' constructors and accessors
     *               (the caller's {@code MethodHandles.lookup()})
     * @param type the record type; its components are of the kinds the class comment lists
     * @param <R> the record type
     * @throws IllegalArgumentException when a component is of another kind
     */
    public static <R extends Record> RecordCodec<R> of(MethodHandles.Lookup lookup, Class<R> type) {
        return new RecordCodec<>(Part.of(lookup, type, type.getSimpleName()), type.getSimpleName());
    }

    /** {@return the fingerprint of the record's shape, as the header carries it} */
    public long shape() {
        return shape;
    }

    /**
     * {@return {@code value} as one frame}
     *
     * @param value the record
     * @throws IllegalArgumentException when a component other than a text is null, or the body is too long
     */
    public byte[] encode(R value) {
        Objects.requireNonNull(value, "value");
        Out out = new Out();
        out.reserve((int) HEADER.byteSize());
        out.buffer.position((int) HEADER.byteSize());
        root.write(value, out, name);
        int length = out.buffer.position() - (int) HEADER.byteSize();
        if (length > MAX_BODY) {
            throw new IllegalArgumentException(name + ": " + length + " bytes, more than " + MAX_BODY);
        }
        byte[] frame = java.util.Arrays.copyOf(out.buffer.array(), out.buffer.position());
        MemorySegment header = MemorySegment.ofArray(frame);
        MAGIC_FIELD.set(header, 0L, MAGIC);
        VERSION_FIELD.set(header, 0L, VERSION);
        SHAPE_FIELD.set(header, 0L, shape);
        LENGTH_FIELD.set(header, 0L, length);
        return frame;
    }

    /**
     * {@return the record in {@code frame}, one whole frame as {@link #encode} or {@link #readFrame} gave it}
     *
     * @param frame the frame
     * @throws IllegalArgumentException when it is anything else: truncated, another magic, version or shape, a
     *     length out of range, an unknown enum ordinal, a boolean other than 0 or 1, bytes left over, or values the
     *     record's constructor refuses
     */
    public R decode(byte[] frame) {
        int length = checkHeader(frame, frame.length, name);
        if ((long) SHAPE_FIELD.get(MemorySegment.ofArray(frame), 0L) != shape) {
            throw new IllegalArgumentException(name + ": written for another shape of the record (another build)");
        }
        if (frame.length != HEADER.byteSize() + length) {
            throw new IllegalArgumentException(name + ": frame of " + frame.length + " bytes, its header says "
                    + (HEADER.byteSize() + length));
        }
        ByteBuffer in = ByteBuffer.wrap(frame, (int) HEADER.byteSize(), length);
        Object value;
        try {
            value = root.read(in, name);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException(name + ": truncated");
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(name + ": " + in.remaining() + " bytes after the record");
        }
        @SuppressWarnings("unchecked")
        R record = (R) value;
        return record;
    }

    /**
     * Reads one frame of any record from {@code in}, checking its header but not its shape ({@link #decode} does).
     *
     * @param in where frames arrive
     * @return the whole frame, or null when {@code in} ended before it began
     * @throws IllegalArgumentException when it ends inside the frame, or the header is not a frame's
     * @throws IOException when reading fails
     */
    public static byte[] readFrame(InputStream in) throws IOException {
        byte[] header = in.readNBytes((int) HEADER.byteSize());
        if (header.length == 0) {
            return null;
        }
        int length = checkHeader(header, header.length, "frame");
        byte[] frame = java.util.Arrays.copyOf(header, header.length + length);
        int read = in.readNBytes(frame, header.length, length);
        if (read != length) {
            throw new IllegalArgumentException("frame: truncated: " + read + " of " + length + " bytes");
        }
        return frame;
    }

    /** Checks a header's magic, version and length; returns the body's length. */
    private static int checkHeader(byte[] bytes, int available, String what) {
        if (available < HEADER.byteSize()) {
            throw new IllegalArgumentException(what + ": truncated: " + available + " bytes, a header has "
                    + HEADER.byteSize());
        }
        MemorySegment header = MemorySegment.ofArray(bytes);
        int magic = (int) MAGIC_FIELD.get(header, 0L);
        if (magic != MAGIC) {
            throw new IllegalArgumentException(what + ": not a frame (magic 0x" + Integer.toHexString(magic) + ")");
        }
        int version = (int) VERSION_FIELD.get(header, 0L);
        if (version != VERSION) {
            throw new IllegalArgumentException(what + ": version " + version + ", expected " + VERSION);
        }
        int length = (int) LENGTH_FIELD.get(header, 0L);
        if (length < 0 || length > MAX_BODY) {
            throw new IllegalArgumentException(what + ": body length " + length + " out of range 0.." + MAX_BODY);
        }
        return length;
    }

    private static VarHandle field(String name) {
        return HEADER.varHandle(MemoryLayout.PathElement.groupElement(name));
    }

    /** A growing big-endian buffer. */
    private static final class Out {
        ByteBuffer buffer = ByteBuffer.allocate(256);

        ByteBuffer reserve(int bytes) {
            if (buffer.remaining() < bytes) {
                long size = Math.max(2L * buffer.capacity(), (long) buffer.position() + bytes);
                if (size > MAX_BODY + HEADER.byteSize()) {
                    throw new IllegalArgumentException("record of more than " + MAX_BODY + " bytes");
                }
                ByteBuffer larger = ByteBuffer.allocate((int) size);
                larger.put(buffer.flip());
                buffer = larger;
            }
            return buffer;
        }
    }

    /** What a component is, and how it is written and read. */
    private enum Kind { INT, LONG, BOOLEAN, ENUM, TEXT, PATH, DURATION, LIST, RECORD }

    /**
     * One component's kind: an enum's constants, a list's element, a record's components, accessors and
     * constructor.
     */
    private record Part(Kind kind, Class<?> type, Object[] constants, Part element, String[] names, Part[] parts,
            MethodHandle[] accessors, MethodHandle constructor) {

        static Part of(MethodHandles.Lookup lookup, Type type, String where) {
            if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
                return new Part(Kind.LIST, List.class, null, of(lookup, p.getActualTypeArguments()[0], where + "[]"),
                        null, null, null, null);
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
            return kind == Kind.RECORD ? record(lookup, c, where)
                    : new Part(kind, c, kind == Kind.ENUM ? c.getEnumConstants() : null, null, null, null, null, null);
        }

        private static Part record(MethodHandles.Lookup lookup, Class<?> type, String where) {
            RecordComponent[] components = type.getRecordComponents();
            String[] names = new String[components.length];
            Part[] parts = new Part[components.length];
            MethodHandle[] accessors = new MethodHandle[components.length];
            Class<?>[] types = new Class<?>[components.length];
            try {
                for (int i = 0; i < components.length; i++) {
                    names[i] = components[i].getName();
                    parts[i] = of(lookup, components[i].getGenericType(), where + "." + names[i]);
                    accessors[i] = lookup.unreflect(components[i].getAccessor());
                    types[i] = components[i].getType();
                }
                MethodHandle constructor = lookup.findConstructor(type, MethodType.methodType(void.class, types));
                return new Part(Kind.RECORD, type, null, null, names, parts, accessors, constructor);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("record codec: no access to " + type.getName() + " through "
                        + lookup + ": " + e.getMessage(), e);
            }
        }

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
                        out.append(names[i]).append(':');
                        parts[i].describe(out);
                        out.append(',');
                    }
                    out.append(')');
                }
                default -> { }
            }
        }

        void write(Object value, Out out, String where) {
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
                        element.write(item, out, where + "[]");
                    }
                }
                case RECORD -> {
                    for (int i = 0; i < parts.length; i++) {
                        parts[i].write(invoke(accessors[i], where, value), out, where + "." + names[i]);
                    }
                }
            }
        }

        private static void writeText(String text, Out out) {
            if (text == null) {
                out.reserve(4).putInt(-1);
                return;
            }
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.reserve(4 + bytes.length).putInt(bytes.length).put(bytes);
        }

        Object read(ByteBuffer in, String where) {
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
                case LIST -> readList(in, where);
                case RECORD -> readRecord(in, where);
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
                CharBuffer text = StandardCharsets.UTF_8.newDecoder().decode(bytes);
                return text.toString();
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

        private List<Object> readList(ByteBuffer in, String where) {
            int count = in.getInt();
            if (count < 0 || count > in.remaining()) { // every element takes a byte at least
                throw new IllegalArgumentException(where + ": count " + count + ", " + in.remaining()
                        + " bytes left");
            }
            List<Object> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                list.add(element.read(in, where + "[]"));
            }
            return list;
        }

        private Object readRecord(ByteBuffer in, String where) {
            Object[] values = new Object[parts.length];
            for (int i = 0; i < parts.length; i++) {
                values[i] = parts[i].read(in, where + "." + names[i]);
            }
            try {
                return constructor.invokeWithArguments(values);
            } catch (IllegalArgumentException | NullPointerException | IllegalStateException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        private static Object invoke(MethodHandle accessor, String where, Object record) {
            try {
                return accessor.invoke(record);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(where + ": " + e, e);
            }
        }
    }
}
