package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DriverFilesTest {
    @Test
    void readsTheProducerPidFromTheName() {
        assertEquals(0x1a2b, DriverFiles.producer("cuda.shm.0.1a2b.1"));
        assertEquals(4242, DriverFiles.producer("cuda.shm.1000." + Long.toHexString(4242) + ".17"));
        assertEquals(-1, DriverFiles.producer("cuda.shm.0.zz.1"));
        assertEquals(-1, DriverFiles.producer("cudaipc4j-1-2"));
        assertEquals(-1, DriverFiles.producer("cuda.shm.0.1a2b"));
    }
}
