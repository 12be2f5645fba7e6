package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class VerificationTest {
    @Test
    void acceptsAUniformBufferOfAnySize() {
        try (Arena arena = Arena.ofConfined()) {
            for (long size : new long[] {1, 7, 4095, (1 << 20) + 3, (3 << 20)}) {
                MemorySegment s = arena.allocate(size);
                s.fill((byte) 0xA7);
                assertTrue(Verification.check(s, (byte) 0xA7).ok(), "size " + size);
            }
        }
    }

    @Test
    void reportsFirstBadOffsetValueAndCount() {
        try (Arena arena = Arena.ofConfined()) {
            long size = (2 << 20) + 11;
            MemorySegment s = arena.allocate(size);
            s.fill((byte) 5);
            s.set(ValueLayout.JAVA_BYTE, (1 << 20) + 9, (byte) 200);
            s.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 6);
            Verification v = Verification.check(s, (byte) 5);
            assertFalse(v.ok());
            assertEquals((1 << 20) + 9, v.firstBadOffset());
            assertEquals(200, v.actual());
            assertEquals(2, v.badBytes());
        }
    }
}
