package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * What a mapping of another process's VMM allocation requires of its size: a multiple of the minimum granularity,
 * which the driver asks of {@code cuMemMap}, not of the recommended one, which only our own allocations follow.
 */
class VmmGranularityTest {
    private static final long MIB = 1 << 20;

    @Test
    void theFlagsAreCudasOwn() {
        // cuda.h: CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1
        assertEquals(0, Vmm.GRANULARITY_MINIMUM);
        assertEquals(1, Vmm.GRANULARITY_RECOMMENDED);
    }

    @Test
    void anyMultipleOfTheMinimumMaps() {
        // torch's expandable segments: 2 MiB chunks for small blocks, 20 MiB for large ones
        assertDoesNotThrow(() -> Vmm.requireMappable(2 * MIB, 2 * MIB, "a chunk", "GPU 0"));
        assertDoesNotThrow(() -> Vmm.requireMappable(20 * MIB, 2 * MIB, "a chunk", "GPU 0"));
        assertDoesNotThrow(() -> Vmm.requireMappable(64 * 1024, 64 * 1024, "a chunk", "GPU 0"));
    }

    @Test
    void otherSizesAreRefusedInOneLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Vmm.requireMappable(3 * MIB, 2 * MIB, "a chunk", "GPU 0"));
        assertEquals("a VMM allocation's size is a multiple of the minimum granularity, 2097152 bytes on GPU 0;"
                + " a chunk of 3145728 bytes is not", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Vmm.requireMappable(MIB, 0, "a chunk", "GPU 0"));
    }
}
