package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A record's frame: every kind of component round-trips, the bytes are pinned, and anything else is refused. */
class RecordCodecTest {
    enum Colour { RED, GREEN }

    record Inner(long size, Colour colour) {}

    record Sample(int count, boolean flag, String text, Path path, Duration delay, List<Integer> numbers, Inner inner,
            List<Inner> inners) {
        Sample {
            if (count < 0) {
                throw new IllegalArgumentException("count must not be negative");
            }
        }
    }

    record Unsupported(Map<String, String> map) {}

    static final RecordCodec.Nested<Inner> INNER = new RecordCodec.Nested<>(Inner.class,
            c -> new Inner(c.next(), c.next()), i -> new Object[] {i.size(), i.colour()});
    private static final RecordCodec<Sample> CODEC = RecordCodec.of(Sample.class,
            c -> new Sample(c.next(), c.next(), c.next(), c.next(), c.next(), c.next(), c.next(), c.next()),
            s -> new Object[] {s.count(), s.flag(), s.text(), s.path(), s.delay(), s.numbers(), s.inner(), s.inners()},
            INNER);
    private static final Sample SAMPLE = new Sample(7, true, "h\u00e9", null, Duration.ofSeconds(2, 5),
            List.of(1, -1), new Inner(256, Colour.GREEN), List.of());
    /** {@link #SAMPLE}'s frame: the header, then each component in order. */
    private static final String GOLDEN = "43345243" + "00000001" + "%s" + "00000035" // magic, version, shape, length
            + "00000007" + "01" + "00000003" + "68c3a9" + "ffffffff" // count 7, flag, text "hé", no path
            + "0000000000000002" + "00000005" + "00000002" + "00000001" + "ffffffff" // 2 s 5 ns, numbers [1, -1]
            + "0000000000000100" + "01" + "00000000"; // inner (256, GREEN), no inners
    /** Where the enum's code lies in {@link #SAMPLE}'s frame. */
    private static final int COLOUR_OFFSET = 20 + 48;

    @Test
    void everyKindRoundTrips() {
        Sample full = new Sample(0, false, "", Path.of("/tmp/a b"), Duration.ofSeconds(-3, 999_999_999),
                List.of(), new Inner(Long.MIN_VALUE, Colour.RED), List.of(new Inner(1, Colour.GREEN)));
        assertEquals(full, CODEC.decode(CODEC.encode(full)));
        assertEquals(SAMPLE, CODEC.decode(CODEC.encode(SAMPLE)));
    }

    @Test
    void theBytesArePinned() {
        String shape = String.format("%016x", CODEC.shape());
        assertEquals(String.format(GOLDEN, shape), HexFormat.of().formatHex(CODEC.encode(SAMPLE)));
        // The shape covers the names of the record, its components and the enum's constants.
        assertEquals("26b99d93b14a8a48", shape);
    }

    @Test
    void framesAreReadOneAtATime() throws IOException {
        byte[] one = CODEC.encode(SAMPLE);
        byte[] two = new byte[2 * one.length];
        System.arraycopy(one, 0, two, 0, one.length);
        System.arraycopy(one, 0, two, one.length, one.length);
        ByteArrayInputStream in = new ByteArrayInputStream(two);
        assertEquals(SAMPLE, CODEC.decode(RecordCodec.readFrame(in)));
        assertEquals(SAMPLE, CODEC.decode(RecordCodec.readFrame(in)));
        assertNull(RecordCodec.readFrame(in));
        assertEquals("frame: truncated: 3 bytes, a header has 20", assertThrows(IllegalArgumentException.class,
                        () -> RecordCodec.readFrame(new ByteArrayInputStream(Arrays.copyOf(one, 3)))).getMessage());
        assertEquals("frame: truncated: 30 of 53 bytes", assertThrows(IllegalArgumentException.class,
                () -> RecordCodec.readFrame(new ByteArrayInputStream(Arrays.copyOf(one, 50)))).getMessage());
    }

    @Test
    void anythingElseIsRefusedInOneLine() {
        byte[] frame = CODEC.encode(SAMPLE);
        assertEquals("Sample: truncated: 19 bytes, a header has 20", refused(Arrays.copyOf(frame, 19)));
        assertEquals("Sample: frame of 60 bytes, its header says 73", refused(Arrays.copyOf(frame, 60)));
        assertEquals("Sample: not a frame (magic 0x43345200)", refused(with(frame, 3, 0)));
        assertEquals("Sample: version 9, expected 1", refused(with(frame, 7, 9)));
        assertEquals("Sample: written for another shape of the record (another build)", refused(with(frame, 8, 1)));
        assertEquals("Sample: body length -16777163 out of range 0..1048576", refused(with(frame, 16, 0xff)));
        assertEquals("Sample: body length 16777269 out of range 0..1048576", refused(with(frame, 16, 1)));
        assertEquals("Sample.inner.colour: unknown code 2 of Colour", refused(with(frame, COLOUR_OFFSET, 2)));
        assertEquals("Sample.flag: a boolean other than 0 or 1", refused(with(frame, 24, 2)));
        assertEquals("Sample.text: text length 16777219, 44 bytes left", refused(with(frame, 25, 1)));
        assertEquals("Sample.text: text length -2, 44 bytes left", refused(body(frame, 5, -2)));
        assertEquals("Sample.text: text not in UTF-8", refused(with(frame, 31, 0x41)));
        assertEquals("Sample.numbers: count 16777218, 21 bytes left", refused(with(frame, 48, 1)));
        assertEquals("Sample.delay: nanoseconds -1 out of range", refused(body(frame, 24, -1)));
        assertEquals("Sample: count must not be negative", refused(body(frame, 0, -1)));
        byte[] longer = Arrays.copyOf(frame, frame.length + 1);
        longer[19]++;
        assertEquals("Sample: 1 bytes after the record", refused(longer));
        byte[] shorter = Arrays.copyOf(frame, frame.length - 1);
        shorter[19]--;
        assertEquals("Sample: truncated", refused(shorter));
    }

    @Test
    void whatCannotBeWrittenIsSaidAtOnce() {
        assertEquals("Sample.delay is null", assertThrows(IllegalArgumentException.class, () -> CODEC.encode(
                new Sample(1, false, null, null, null, List.of(), SAMPLE.inner(), List.of()))).getMessage());
        assertEquals("record codec: Unsupported.map is a java.util.Map<java.lang.String, java.lang.String>, not a"
                + " kind it writes", assertThrows(IllegalArgumentException.class, () -> RecordCodec.of(
                        Unsupported.class, c -> new Unsupported(c.next()), u -> new Object[] {u.map()})).getMessage());
        assertEquals("record codec: no maker for Sample.inner (" + Inner.class.getName() + ")",
                assertThrows(IllegalArgumentException.class, () -> RecordCodec.of(Sample.class, c -> SAMPLE,
                        s -> new Object[0])).getMessage());
    }

    @Test
    void aMakerThatDoesNotMatchItsRecordIsSaid() {
        RecordCodec<Inner> tooFew = RecordCodec.of(Inner.class, c -> new Inner(c.next(), Colour.RED),
                INNER.parts());
        byte[] frame = tooFew.encode(new Inner(1, Colour.GREEN));
        assertEquals("record codec: the maker of " + Inner.class.getName() + " took 1 of its 2 components",
                assertThrows(IllegalStateException.class, () -> tooFew.decode(frame)).getMessage());
        RecordCodec<Inner> tooMany = RecordCodec.of(Inner.class, c -> new Inner(c.next(),
                c.next() == null ? c.next() : c.next()), INNER.parts());
        assertEquals("record codec: a maker took more than the 2 components",
                assertThrows(IllegalStateException.class, () -> tooMany.decode(frame)).getMessage());
    }

    @Test
    void partsThatDoNotMatchTheirRecordAreSaid() {
        RecordCodec<Inner> tooFew = RecordCodec.of(Inner.class, INNER.maker(), i -> new Object[] {i.size()});
        assertEquals("record codec: the parts of " + Inner.class.getName() + " gave 1 of its 2 components",
                assertThrows(IllegalStateException.class, () -> tooFew.encode(new Inner(1, Colour.GREEN)))
                        .getMessage());
    }

    private static byte[] with(byte[] frame, int offset, int value) {
        byte[] changed = frame.clone();
        changed[offset] = (byte) value;
        return changed;
    }

    /** {@code frame} with the int at {@code offset} of the body set to {@code value}. */
    private static byte[] body(byte[] frame, int offset, int value) {
        byte[] changed = frame.clone();
        ByteBuffer.wrap(changed).putInt(20 + offset, value);
        return changed;
    }

    private static String refused(byte[] frame) {
        return assertThrows(IllegalArgumentException.class, () -> CODEC.decode(frame)).getMessage();
    }
}
