package org.cudaipc4j.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class NcclSettingsTest {
    @Test
    void theLibraryIsTheNameGivenStrippedElseLibnccl2() {
        assertEquals("libnccl.so.2", NcclSettings.LIBRARY.valueOf(null));
        assertEquals("libnccl.so.2", NcclSettings.LIBRARY.valueOf(" "));
        assertEquals("/opt/nccl/libnccl.so.2", NcclSettings.LIBRARY.valueOf(" /opt/nccl/libnccl.so.2 "));
        assertEquals("libnccl.so.2", NcclSettings.LIBRARY.defaultValue());
    }
}
