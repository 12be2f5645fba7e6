package org.cudaipc4j.coord;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A record as one frame of bytes and back, over its components, so that a process hands typed values to a process it
 * started ({@link Supervisor#startWithInput}, {@link StarterInput}) without encoding them field by field. A frame is
 * the {@link #HEADER} (magic {@code "C4RC"}, {@link #VERSION}, the record's shape fingerprint, the body's length;
 * big-endian) and the body: each component in declaration order, big-endian: an {@code int} 4 bytes, a
 * {@code long} 8, a {@code boolean} 1 (0 or 1), an enum 1 (its ordinal), a {@link String} or
 * {@link java.nio.file.Path} its UTF-8 length (4; -1 for null) and bytes, a {@link java.time.Duration} its seconds
 * (8) and nanoseconds (4), a {@link java.util.List} its count (4) and elements, a record its components. The shape
 * (record, component and enum constant names, and the kinds) is fingerprinted into the header: a reader of another
 * build, whose ordinals might mean other constants, refuses the frame instead of misreading it. Every malformed
 * frame is refused with one {@link IllegalArgumentException}. A record is made by its {@link Maker} and taken apart by
 * its {@link Parts}: reflection would find its constructor and accessors, but their first calls in a JVM cost tens of
 * milliseconds, on a child's way to its first step (the constructor) and on its parent's way to starting it (the
 * accessors).
 *
 * @param <R> the record type
 */
public final class RecordCodec<R extends Record> {
    private static final ValueLayout.OfInt INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
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

    // The header's fields by offset, read and written through a ByteBuffer (big-endian, as the layout says), the
    // offsets summed from the members' sizes: a layout's var handles, and even its first path, cost a fresh JVM tens
    // of milliseconds, and every child reads a frame first thing.
    private static final int MAGIC_AT = offset("magic");
    private static final int VERSION_AT = offset("version");
    private static final int SHAPE_AT = offset("shape");
    private static final int LENGTH_AT = offset("length");

    private final RecordPart root;
    private final long shape;
    private final String name;

    private RecordCodec(RecordPart root, String name) {
        this.root = root;
        this.name = name;
        StringBuilder canonical = new StringBuilder();
        root.describe(canonical);
        this.shape = LayoutFingerprint.of(canonical.toString());
    }

    /**
     * Builds a record from its components, decoded in declaration order, without reflection (whose first call of
     * a constructor costs a child's start tens of milliseconds): {@code c -> new R(c.next(), c.next(), ...)}, one
     * {@link Components#next()} per component.
     *
     * @param <R> the record type
     */
    @FunctionalInterface
    public interface Maker<R> {
        /**
         * {@return the record of {@code components}}
         *
         * @param components the decoded components, taken in declaration order
         */
        R make(Components components);
    }

    /**
     * Takes a record apart into its components, in declaration order, without reflection (whose first call of an
     * accessor costs a parent tens of milliseconds before it can tell its children their settings):
     * {@code r -> new Object[] {r.a(), r.b(), ...}}, one element per component.
     *
     * @param <R> the record type
     */
    @FunctionalInterface
    public interface Parts<R> {
        /**
         * {@return the components of {@code record}, in declaration order}
         *
         * @param record the record
         */
        Object[] of(R record);
    }

    /** A record's decoded components, handed out in declaration order. */
    public static final class Components {
        private final Object[] values;
        private int taken;

        Components(Object[] values) {
            this.values = values;
        }

        /**
         * {@return the next component, as the parameter it is passed to}
         *
         * @param <T> the component's type (an {@code int} component is an {@code Integer}, and so on)
         * @throws IllegalStateException when every component was taken: the maker does not match the record
         */
        @SuppressWarnings("unchecked")
        public <T> T next() {
            if (taken == values.length) {
                throw new IllegalStateException("record codec: a maker took more than the " + values.length
                        + " components");
            }
            return (T) values[taken++];
        }

        void checkAllTaken(Class<?> type) {
            if (taken != values.length) {
                throw new IllegalStateException("record codec: the maker of " + type.getName() + " took " + taken
                        + " of its " + values.length + " components");
            }
        }
    }

    /**
     * A nested record type's maker and parts.
     *
     * @param type the nested record type
     * @param maker how it is made
     * @param parts how it is taken apart
     * @param <N> the nested record type
     */
    public record Nested<N extends Record>(Class<N> type, Maker<N> maker, Parts<N> parts) {}

    /**
     * {@return the codec of {@code type}}
     *
     * @param type the record type; its components are of the kinds the class comment lists
     * @param maker how a {@code type} is made
     * @param parts how a {@code type} is taken apart
     * @param nested how each record type among its components (at any depth) is made and taken apart
     * @param <R> the record type
     * @throws IllegalArgumentException when a component is of another kind, or a record type has no maker
     */
    public static <R extends Record> RecordCodec<R> of(Class<R> type, Maker<R> maker, Parts<R> parts,
            Nested<?>... nested) {
        Map<Class<?>, Nested<?>> records = new HashMap<>();
        records.put(type, new Nested<>(type, maker, parts));
        for (Nested<?> n : nested) {
            records.put(n.type(), n);
        }
        return new RecordCodec<>(RecordPart.of(type, records, type.getSimpleName()), type.getSimpleName());
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
     * @throws IllegalStateException when a record's {@link Parts} do not match it
     */
    public byte[] encode(R value) {
        Objects.requireNonNull(value, "value");
        Out out = new Out();
        out.reserve((int) HEADER.byteSize());
        out.buffer.position((int) HEADER.byteSize());
        root.write(value, out);
        int length = out.buffer.position() - (int) HEADER.byteSize();
        if (length > MAX_BODY) {
            throw new IllegalArgumentException(name + ": " + length + " bytes, more than " + MAX_BODY);
        }
        byte[] frame = java.util.Arrays.copyOf(out.buffer.array(), out.buffer.position());
        ByteBuffer.wrap(frame).putInt(MAGIC_AT, MAGIC).putInt(VERSION_AT, VERSION).putLong(SHAPE_AT, shape)
                .putInt(LENGTH_AT, length);
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
        if (ByteBuffer.wrap(frame).getLong(SHAPE_AT) != shape) {
            throw new IllegalArgumentException(name + ": written for another shape of the record (another build)");
        }
        if (frame.length != HEADER.byteSize() + length) {
            throw new IllegalArgumentException(name + ": frame of " + frame.length + " bytes, its header says "
                    + (HEADER.byteSize() + length));
        }
        ByteBuffer in = ByteBuffer.wrap(frame, (int) HEADER.byteSize(), length);
        Object value;
        try {
            value = root.read(in);
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
        ByteBuffer header = ByteBuffer.wrap(bytes);
        int magic = header.getInt(MAGIC_AT);
        if (magic != MAGIC) {
            throw new IllegalArgumentException(what + ": not a frame (magic 0x" + Integer.toHexString(magic) + ")");
        }
        int version = header.getInt(VERSION_AT);
        if (version != VERSION) {
            throw new IllegalArgumentException(what + ": version " + version + ", expected " + VERSION);
        }
        int length = header.getInt(LENGTH_AT);
        if (length < 0 || length > MAX_BODY) {
            throw new IllegalArgumentException(what + ": body length " + length + " out of range 0.." + MAX_BODY);
        }
        return length;
    }

    private static int offset(String name) {
        long offset = 0;
        for (MemoryLayout member : HEADER.memberLayouts()) {
            if (member.name().orElseThrow().equals(name)) {
                return (int) offset;
            }
            offset += member.byteSize();
        }
        throw new IllegalArgumentException("no field " + name + " in " + HEADER);
    }

    /** A growing big-endian buffer. */
    static final class Out {
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
}
