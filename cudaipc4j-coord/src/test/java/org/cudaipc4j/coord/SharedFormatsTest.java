package org.cudaipc4j.coord;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The shared formats of this module, pinned: the numbers below are the ones the code used before the layouts were
 * described as {@link java.lang.foreign.MemoryLayout}s (and the ones {@code docs/interop-format.md} and the Python
 * package read), so a change to a layout shows here.
 */
class SharedFormatsTest {

    @Test
    void exportHoldersKeepsItsOffsets() {
        // Before: HEADER = 64, ENTRY = 32; magic at 0, capacity at 8; entry fields at +0, +8, +16, +24.
        assertEquals(64, ExportHolders.HEADER.byteSize());
        assertEquals(0, ExportHolders.HEADER.byteOffset(groupElement("magic")));
        assertEquals(8, ExportHolders.HEADER.byteOffset(groupElement("capacity")));
        assertEquals(32, ExportHolders.ENTRY.byteSize());
        assertEquals(0, ExportHolders.ENTRY.byteOffset(groupElement("state")));
        assertEquals(8, ExportHolders.ENTRY.byteOffset(groupElement("pid")));
        assertEquals(16, ExportHolders.ENTRY.byteOffset(groupElement("startMillis")));
        assertEquals(24, ExportHolders.ENTRY.byteOffset(groupElement("key")));
        assertEquals(8, ExportHolders.HEADER.byteAlignment());
        assertEquals(8, ExportHolders.ENTRY.byteAlignment());
        for (int i : new int[] {0, 1, 7, ExportHolders.MAX_ENTRIES - 1}) {
            assertEquals(64 + 32L * i, ExportHolders.offset(i), "entry " + i);
        }
        assertEquals(64 + 32L * 8, ExportHolders.sizeFor(8));
    }

    @Test
    void exportHoldersWritesItsHeaderWhereItUsedTo() {
        try (ExportHolders table = ExportHolders.create(5); SharedSegment raw = SharedSegment.open(table.name())) {
            MemorySegment m = raw.memory();
            assertEquals(0x3253_444c_4f48_5043L, m.get(ValueLayout.JAVA_LONG, 0), "magic \"CPHOLDS2\" at 0");
            assertEquals(5, m.get(ValueLayout.JAVA_INT, 8), "capacity at 8");
            assertEquals(64 + 5 * 32, m.byteSize());
        }
    }

    /** The codes are the block's, spelled out here: reordering or inserting constants cannot move them. */
    @Test
    void processStatusCodesAreFixed() {
        assertEquals(0, ProcessStatus.NOT_STARTED.code());
        assertEquals(1, ProcessStatus.STARTING.code());
        assertEquals(2, ProcessStatus.READY.code());
        assertEquals(3, ProcessStatus.RUNNING.code());
        assertEquals(4, ProcessStatus.DONE.code());
        assertEquals(5, ProcessStatus.FAILED.code());
        assertEquals(6, ProcessStatus.RELEASED.code());
        for (ProcessStatus s : ProcessStatus.values()) {
            assertEquals(s, ProcessStatus.ofCode(s.code()));
        }
        assertEquals("unknown process status code 7 in the control block",
                assertThrows(ControlBlockException.class, () -> ProcessStatus.ofCode(7)).getMessage());
        assertEquals("unknown process status code -1 in the control block",
                assertThrows(ControlBlockException.class, () -> ProcessStatus.ofCode(-1)).getMessage());
    }
}
