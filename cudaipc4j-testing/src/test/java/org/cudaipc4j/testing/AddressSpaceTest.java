package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The VmSize reading and the readers' bound, without a GPU. */
class AddressSpaceTest {
    private static final String STATUS = "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t 9876544 kB\n"
            + "VmSize:\t 9876543 kB\nVmLck:\t       0 kB\n";

    @Test
    void vmSizeIsReadInBytesFromTheStatusText() {
        assertEquals(9876543L * 1024, AddressSpace.vmSize(STATUS));
    }

    @Test
    void thisProcessHasAnAddressSpace() {
        long size = AddressSpace.vmSize();
        assertTrue(size > 1L << 20, "a JVM holds more than 1 MiB: " + size);
    }

    @Test
    void aStatusWithoutVmSizeOrWithAnotherUnitIsRefused() {
        assertTrue(assertThrows(IllegalStateException.class, () -> AddressSpace.vmSize("Name:\tx\nVmPeak:\t1 kB\n"))
                .getMessage().startsWith("no VmSize line"));
        assertTrue(assertThrows(IllegalStateException.class, () -> AddressSpace.vmSize("VmSize:\t12 MB\n"))
                .getMessage().startsWith("VmSize is not a count of kB"));
        assertThrows(IllegalStateException.class, () -> AddressSpace.vmSize("VmSize:\t-12 kB\n"));
    }

    @Test
    void theBoundIsBeforePlusOnePointOneTimesTheMappedBytesPlusOneGib() {
        assertEquals(5L + AddressSpace.SLACK, AddressSpace.bound(5, 0));
        assertEquals(1000 + 1100 + AddressSpace.SLACK, AddressSpace.bound(1000, 1000));
        // rounded up: 1.1 * 2 MiB + a byte
        long mapped = (2L << 20) + 1;
        assertEquals((2L << 30) + mapped + (mapped + 9) / 10 + AddressSpace.SLACK, AddressSpace.bound(2L << 30,
                mapped));
        assertEquals(0, AddressSpace.excess(0, 10, 11 + AddressSpace.SLACK));
        assertEquals(1, AddressSpace.excess(0, 10, 12 + AddressSpace.SLACK));
        assertEquals(-AddressSpace.SLACK, AddressSpace.excess(7, 0, 7));
    }

    @Test
    void negativeSizesAndOverflowsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> AddressSpace.bound(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> AddressSpace.bound(0, -1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AddressSpace.bound(Long.MAX_VALUE - AddressSpace.SLACK, 1));
        assertTrue(e.getMessage().contains("overflows"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AddressSpace.bound(0, Long.MAX_VALUE));
    }

    @Test
    void gibHasTwoDecimals() {
        assertEquals("1.50 GiB", AddressSpace.gib(3L << 29));
    }
}
