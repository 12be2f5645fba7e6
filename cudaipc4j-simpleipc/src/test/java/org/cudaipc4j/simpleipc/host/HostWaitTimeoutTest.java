package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The host backend's wait timeout from its property: positive, and short enough that no deadline overflows. */
class HostWaitTimeoutTest {
    @AfterEach
    void clear() {
        System.clearProperty(HostBackend.WAIT_TIMEOUT_PROPERTY);
    }

    @Test
    void aValueInRangeIsTaken() {
        System.setProperty(HostBackend.WAIT_TIMEOUT_PROPERTY, "3153600000000");
        assertEquals(Duration.ofHours(876_000), HostBackend.configuredWaitTimeout());
        System.clearProperty(HostBackend.WAIT_TIMEOUT_PROPERTY);
        assertEquals(Duration.ofSeconds(60), HostBackend.configuredWaitTimeout());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "abc", "1e20", "3153600000001", "9223372036854", "9223372036854775807"})
    void otherValuesAreRefusedNamingTheBound(String value) {
        System.setProperty(HostBackend.WAIT_TIMEOUT_PROPERTY, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, HostBackend::configuredWaitTimeout);
        assertEquals("cudaipc4j.host.waitTimeoutMs must be a positive number of milliseconds, at most 3153600000000"
                + " (a hundred years): '" + value + "'", e.getMessage());
    }
}
