package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostHandleTest {
    private static final String NAME = "cudaipc4j-4194304-0123456789abcdef-mem1023"; // longest real name: 42

    @AfterEach
    void nothingLeft() {
        ShmFiles.assertNoneLeft(ProcessHandle.current().pid());
    }

    private static HostHandle memory() {
        return new HostHandle(HostHandle.Kind.MEMORY, 1023, 4_194_304, 64L << 20, NAME);
    }

    @Test
    void encodesTheDocumentedLayout() {
        byte[] bytes = memory().encode();
        assertEquals(64, bytes.length);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("C4JH", new String(bytes, 0, 4, StandardCharsets.US_ASCII));
        assertEquals(1, bytes[4]);
        assertEquals(NAME.length(), bytes[5]);
        assertEquals(1023, b.getShort(6));
        assertEquals(4_194_304, b.getInt(8));
        assertEquals(64L << 20, b.getLong(12));
        assertEquals(NAME, new String(bytes, 20, NAME.length(), StandardCharsets.US_ASCII));
        for (int i = 20 + NAME.length(); i < 64; i++) {
            assertEquals(0, bytes[i], "padding at " + i);
        }
    }

    @Test
    void roundTripsMemoryAndEventHandles() {
        HostHandle m = memory();
        assertEquals(m, HostHandle.decode(m.encode()));
        HostHandle e = new HostHandle(HostHandle.Kind.EVENT, 0, 1, EventSegment.SIZE, "cudaipc4j-1-00000000000000ff-evt0");
        assertEquals(e, HostHandle.decode(e.encode()));
        assertEquals(2, e.encode()[4]);
        HostHandle big = new HostHandle(HostHandle.Kind.MEMORY, 65535, 0xFFFF_FFFFL, 5L << 40, "cudaipc4j-x");
        assertEquals(big, HostHandle.decode(big.encode()));
    }

    @Test
    void exportedHandlesNameTheirSegments() {
        try (HostBackend backend = new HostBackend(3)) {
            var export = backend.export(2, 12345);
            HostHandle m = HostHandle.decode(export.memoryHandle());
            HostHandle e = HostHandle.decode(export.eventHandle());
            long pid = ProcessHandle.current().pid();
            assertEquals(new HostHandle(HostHandle.Kind.MEMORY, 2, pid, 12345, m.segmentName()), m);
            assertEquals(new HostHandle(HostHandle.Kind.EVENT, 2, pid, EventSegment.SIZE, e.segmentName()), e);
            assertTrue(m.segmentName().startsWith("cudaipc4j-" + pid + "-") && m.segmentName().endsWith("-mem2"),
                    m.segmentName());
            assertTrue(e.segmentName().endsWith("-evt2"), e.segmentName());
            assertEquals(java.util.List.of(e.segmentName(), m.segmentName()).stream().sorted().toList(),
                    ShmFiles.ofThisProcess());
            assertArrayEquals(export.memoryHandle(), export.memoryHandle());
            export.memoryHandle()[0] = 0; // a copy: the export's handle is unchanged
            assertEquals(m, HostHandle.decode(export.memoryHandle()));
        }
    }

    private static void assertRejected(String expected, Consumer<byte[]> corrupt) {
        byte[] bytes = memory().encode();
        corrupt.accept(bytes);
        BackendException e = assertThrows(BackendException.class, () -> HostHandle.decode(bytes));
        assertTrue(e.getMessage().startsWith("invalid host IPC handle: "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void rejectsBadMagic() {
        assertRejected("bad magic 0x", b -> b[0] = 'X');
        assertRejected("bad magic 0x00000000", b -> Arrays.fill(b, (byte) 0));
    }

    @ParameterizedTest
    @ValueSource(bytes = {0, 4, -1})
    void rejectsUnknownKind(byte kind) {
        assertRejected("unknown kind " + kind, b -> b[4] = kind);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void rejectsNonPositiveSize(long size) {
        assertRejected("size " + size + " is not positive",
                b -> ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(12, size));
    }

    @Test
    void rejectsEventOfWrongSize() {
        // A memory handle relabelled as an event: its size is the buffer's, not an event's.
        assertRejected("event segment size " + (64L << 20) + " is not " + EventSegment.SIZE, b -> b[4] = 2);
    }

    @Test
    void rejectsBadNames() {
        assertRejected("segment name length 0", b -> b[5] = 0);
        assertRejected("segment name length 45", b -> b[5] = 45);
        assertRejected("non-zero byte after the segment name", b -> b[63] = 'x');
        assertRejected("bad character at index 3", b -> b[20 + 3] = '/');
        assertRejected("bad character at index 0", b -> b[20] = (byte) 0xE9);
        assertRejected("is not a cudaipc4j-* name", b -> b[20] = 'X');
        assertRejected("is not a cudaipc4j-* name", b -> {
            b[20 + 10] = '.';
            b[20 + 11] = '.';
        });
        assertRejected("exporter pid 0", b -> ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 0));
    }

    @Test
    void rejectsWrongLength() {
        assertThrows(BackendException.class, () -> HostHandle.decode(null));
        BackendException e = assertThrows(BackendException.class, () -> HostHandle.decode(new byte[63]));
        assertEquals("invalid host IPC handle: it is 63 bytes, not 64", e.getMessage());
        assertThrows(BackendException.class, () -> HostHandle.decode(Arrays.copyOf(memory().encode(), 65)));
    }

    @Test
    void rejectsTheWrongKindWhereOneIsExpected() {
        BackendException e = assertThrows(BackendException.class,
                () -> HostHandle.decode(memory().encode(), HostHandle.Kind.EVENT));
        assertEquals("invalid host IPC handle: it is a memory handle where an event handle was expected", e.getMessage());
    }

    @Test
    void constructorRejectsWhatCannotBeEncoded() {
        assertThrows(IllegalArgumentException.class,
                () -> new HostHandle(HostHandle.Kind.MEMORY, 0, 1, 1, NAME + "-xy")); // 45 characters
        assertThrows(IllegalArgumentException.class, () -> new HostHandle(HostHandle.Kind.MEMORY, 65536, 1, 1, NAME));
        assertThrows(IllegalArgumentException.class, () -> new HostHandle(HostHandle.Kind.MEMORY, 0, 1L << 32, 1, NAME));
        assertThrows(IllegalArgumentException.class, () -> new HostHandle(HostHandle.Kind.EVENT, 0, 1, 100, NAME));
    }
}
