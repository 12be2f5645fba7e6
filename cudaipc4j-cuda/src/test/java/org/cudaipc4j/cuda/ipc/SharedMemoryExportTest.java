package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;
import org.junit.jupiter.api.Test;

/** What {@link SharedMemoryExport#of} refuses, checked without a GPU: memory that is none of the exportable kinds. */
class SharedMemoryExportTest {
    /** Memory of no kind this library exports, as another framework's view would be. */
    private static final class Foreign implements DeviceMemory {
        @Override
        public long address() {
            return 0x1000;
        }

        @Override
        public long bytes() {
            return 64;
        }

        @Override
        public Context context() {
            throw new AssertionError("an export that is refused asks nothing of the memory");
        }

        @Override
        public String toString() {
            return "foreign memory";
        }
    }

    @Test
    void memoryOfAnotherKindIsRefusedSayingWhichKindsExport() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SharedMemoryExport.of(new Foreign()));
        assertEquals("foreign memory cannot be exported: only a DeviceBuffer, a VmmAllocation or a PoolBuffer of this"
                + " process can", e.getMessage());
    }

    @Test
    void aSliceIsRefusedToo() {
        DeviceMemory slice = new Foreign().slice(0, 16);
        assertThrows(IllegalArgumentException.class, () -> SharedMemoryExport.of(slice));
    }
}
