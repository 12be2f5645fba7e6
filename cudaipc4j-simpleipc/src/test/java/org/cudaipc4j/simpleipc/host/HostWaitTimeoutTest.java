package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The host backend's wait timeout from its property: positive, and short enough that no deadline overflows. */
class HostWaitTimeoutTest {
    @AfterEach
    void clear() {
        System.clearProperty(SimpleIpcSettings.WAIT_TIMEOUT.name());
    }

    @Test
    void aValueInRangeIsTaken() {
        System.setProperty(SimpleIpcSettings.WAIT_TIMEOUT.name(), "3153600000000");
        assertEquals(Duration.ofHours(876_000), SimpleIpcSettings.WAIT_TIMEOUT.get());
        System.clearProperty(SimpleIpcSettings.WAIT_TIMEOUT.name());
        assertEquals(Duration.ofSeconds(60), SimpleIpcSettings.WAIT_TIMEOUT.get());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "abc", "1e20", "3153600000001", "9223372036854", "9223372036854775807"})
    void otherValuesAreRefusedNamingTheBound(String value) {
        System.setProperty(SimpleIpcSettings.WAIT_TIMEOUT.name(), value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, SimpleIpcSettings.WAIT_TIMEOUT::get);
        assertEquals("cudaipc4j.host.waitTimeoutMs must be a positive number of milliseconds, at most 3153600000000"
                + " (a hundred years): '" + value + "'", e.getMessage());
    }
}
