package org.cudaipc4j.simpleipc.host;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The host backend's shared formats, pinned: the numbers below are the offset constants the code kept by hand
 * before the formats were described as {@link java.lang.foreign.MemoryLayout}s, so a change to a layout shows here.
 */
class HostFormatsTest {

    private static long offset(StructLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }

    @Test
    void eventSegmentKeepsItsOffsets() {
        // Before: MAGIC_OFFSET = 0, RECORD_OFFSET = 128, RECORDER_PID_OFFSET = 136, COMPLETED_OFFSET = 256, SIZE = 384.
        assertEquals(0, offset(EventSegment.LAYOUT, "magic"));
        assertEquals(128, offset(EventSegment.LAYOUT, "record"));
        assertEquals(136, offset(EventSegment.LAYOUT, "recorderPid"));
        assertEquals(256, offset(EventSegment.LAYOUT, "completed"));
        assertEquals(384, EventSegment.SIZE);
        assertEquals(384, EventSegment.LAYOUT.byteSize());
        assertEquals(8, EventSegment.LAYOUT.byteAlignment());
    }

    @Test
    void eventSegmentWritesWhereItUsedTo() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(384, 128);
            EventSegment e = EventSegment.initialize(m, "pinned");
            assertEquals(0x3130_5456_454A_3443L, m.get(ValueLayout.JAVA_LONG, 0), "magic \"C4JEVT01\" at 0");
            long ticket = e.takeTicket();
            assertEquals(ticket, m.get(ValueLayout.JAVA_LONG, 128), "record sequence at 128");
            assertEquals(ProcessHandle.current().pid(), m.get(ValueLayout.JAVA_LONG, 136), "recorder pid at 136");
            e.complete(ticket);
            assertEquals(ticket, m.get(ValueLayout.JAVA_LONG, 256), "completed sequence at 256");
            m.set(ValueLayout.JAVA_LONG, 256, 41);
            assertEquals(41, e.completed());
        }
    }

    @Test
    void hostHandleKeepsItsOffsets() {
        // Before: MAGIC_OFFSET = 0, KIND_OFFSET = 4, NAME_LENGTH_OFFSET = 5, DEVICE_OFFSET = 6, PID_OFFSET = 8,
        // SIZE_OFFSET = 12, NAME_OFFSET = 20, BYTES = 64, MAX_NAME_BYTES = 44.
        assertEquals(0, offset(HostHandle.LAYOUT, "magic"));
        assertEquals(4, offset(HostHandle.LAYOUT, "kind"));
        assertEquals(5, offset(HostHandle.LAYOUT, "nameLength"));
        assertEquals(6, offset(HostHandle.LAYOUT, "device"));
        assertEquals(8, offset(HostHandle.LAYOUT, "exporterPid"));
        assertEquals(12, offset(HostHandle.LAYOUT, "size"));
        assertEquals(20, offset(HostHandle.LAYOUT, "segmentName"));
        assertEquals(20, HostHandle.NAME_OFFSET);
        assertEquals(44, HostHandle.MAX_NAME_BYTES);
        assertEquals(64, HostHandle.BYTES);
        assertEquals(HostHandle.BYTES, HostHandle.LAYOUT.byteSize());
        assertEquals(1, HostHandle.LAYOUT.byteAlignment(), "packed: it lives in byte arrays and control blocks");
    }

    @Test
    void hostHandleHasItsPinnedBytes() {
        // Computed from the documented layout: "C4JH", kind 1, name length 42, device 1023, pid 4194304,
        // size 64 MiB, the name, zeros.
        String expected = "43344a48" + "01" + "2a" + "ff03" + "00004000" + "0000000400000000"
                + HexFormat.of().formatHex("cudaipc4j-4194304-0123456789abcdef-mem1023".getBytes())
                + "0000";
        HostHandle h = new HostHandle(HostHandle.Kind.MEMORY, 1023, 4_194_304, 64L << 20,
                "cudaipc4j-4194304-0123456789abcdef-mem1023");
        assertEquals(expected, HexFormat.of().formatHex(h.encode()));
        assertEquals(h, HostHandle.decode(HexFormat.of().parseHex(expected)));
    }
}
