package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class KernelArgTest {
    @Test
    void scalarsAreNaturallyAligned() {
        assertEquals(1, KernelArg.int8((byte) 1).alignment());
        assertEquals(2, KernelArg.int16((short) 1).size());
        assertEquals(4, KernelArg.float32(1f).alignment());
        assertEquals(8, KernelArg.float64(1).size());
        assertEquals(8, KernelArg.pointer(0x1000).alignment());
    }

    @Test
    void aValueOfAnyLayoutKeepsItsBytesAndAlignment() {
        MemoryLayout layout = MemoryLayout.sequenceLayout(3, ValueLayout.JAVA_INT).withByteAlignment(16);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(layout);
            value.setAtIndex(ValueLayout.JAVA_INT, 2, 77);
            KernelArg arg = KernelArg.of(layout, value);
            assertEquals(12, arg.size());
            assertEquals(16, arg.alignment());
            MemorySegment dst = arena.allocate(32);
            arg.writeTo(dst, 16);
            assertEquals(77, dst.get(ValueLayout.JAVA_INT, 24));
            assertThrows(IllegalArgumentException.class,
                    () -> KernelArg.of(ValueLayout.JAVA_LONG, value));
            assertThrows(IllegalArgumentException.class, () -> KernelArg.bytes(new byte[4], 3));
            assertThrows(IllegalArgumentException.class, () -> KernelArg.bytes(new byte[4], 128));
            assertThrows(IllegalArgumentException.class, () -> KernelArg.bytes(new byte[0], 1));
        }
    }
}
