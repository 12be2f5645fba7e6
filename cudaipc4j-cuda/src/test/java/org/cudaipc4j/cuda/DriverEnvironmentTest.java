package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class DriverEnvironmentTest {
    @Test
    void aDefaultIsSetOnceAndAValueAlreadyThereWins() {
        String name = "CUDAIPC4J_TEST_" + ProcessHandle.current().pid();
        assertNull(DriverEnvironment.get(name));
        assertEquals("1", DriverEnvironment.setDefault(name, "1"));
        assertEquals("1", DriverEnvironment.get(name));
        // As with a value the user exported: it stays.
        assertEquals("1", DriverEnvironment.setDefault(name, "8"));
    }
}
