package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** A child's request for its descriptors: its index, little-endian. */
class FdRequestFormatTest {
    @Test
    void theRequestIsTheIndex() {
        assertEquals(4, FdDistribution.REQUEST.byteSize());
        assertEquals("03000000", HexFormat.of().formatHex(FdDistribution.request(3)));
        assertEquals("ffffff7f", HexFormat.of().formatHex(FdDistribution.request(Integer.MAX_VALUE)));
    }
}
