package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A child's wait for what its starter writes ends with the record, or with one line: never hangs. */
class StarterInputTest {
    record Name(String name) {}

    private static final RecordCodec<Name> CODEC = RecordCodec.of(Name.class, c -> new Name(c.next()),
            n -> new Object[] {n.name()});
    private static final long PARENT = Pids.parentPid();

    @Test
    void recordsArriveInOrderThenTheClosedPipeIsSaid() {
        byte[] a = CODEC.encode(new Name("a"));
        byte[] b = CODEC.encode(new Name("b"));
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        StarterInput input = StarterInput.of(new ByteArrayInputStream(both), PARENT);
        assertEquals(new Name("a"), input.next(CODEC, "the first name", null));
        assertEquals(new Name("b"), input.next(CODEC, "the second name", null));
        assertEquals("the parent closed its pipe before sending the third name",
                assertThrows(CoordinationException.class, () -> input.next(CODEC, "the third name", null))
                        .getMessage());
        assertEquals("the parent closed its pipe before sending more",
                assertThrows(CoordinationException.class, () -> input.next(CODEC, "more", null)).getMessage());
    }

    @Test
    void aGoneStarterEndsTheWait() throws IOException {
        long notTheParent = Pids.self(); // never this process's parent: counted gone
        try (PipedOutputStream open = new PipedOutputStream()) {
            StarterInput input = StarterInput.of(new PipedInputStream(open), notTheParent);
            assertEquals("the parent (pid " + notTheParent + ") is gone before sending the name",
                    assertThrows(CoordinationException.class, () -> input.next(CODEC, "the name", null))
                            .getMessage());
        }
    }

    @Test
    void aDeadlineEndsTheWait() throws IOException {
        try (PipedOutputStream open = new PipedOutputStream()) {
            StarterInput input = StarterInput.of(new PipedInputStream(open), PARENT);
            assertEquals("timed out after 50 ms (the test's limit) waiting for the name",
                    assertThrows(CoordinationException.class, () -> input.next(CODEC, "the name",
                            Deadline.after(Duration.ofMillis(50), "the test's limit"))).getMessage());
        }
    }

    @Test
    void whatIsNotAFrameIsRefused() {
        StarterInput input = StarterInput.of(new ByteArrayInputStream(new byte[] {'0', ' ', 's', 'e', 'g', ' ', '1',
                '0', '2', '4', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}), PARENT);
        assertEquals("frame: not a frame (magic 0x30207365)", assertThrows(IllegalArgumentException.class,
                () -> input.next(CODEC, "the name", null)).getMessage());
        StarterInput other = StarterInput.of(new ByteArrayInputStream(
                RecordCodec.of(RecordCodecTest.Inner.class, RecordCodecTest.INNER.maker(), RecordCodecTest.INNER.parts())
                        .encode(new RecordCodecTest.Inner(1, RecordCodecTest.Colour.RED))), PARENT);
        assertEquals("Name: written for another shape of the record (another build)",
                assertThrows(IllegalArgumentException.class, () -> other.next(CODEC, "the name", null)).getMessage());
    }
}
