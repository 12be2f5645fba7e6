package org.cudaipc4j.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrelinkTest {
    @Test
    void linksInTheBackgroundAndEndsWithOrWithoutADriver() throws InterruptedException {
        Thread t = Prelink.startInBackground();
        assertNotNull(t);
        assertTrue(t.isDaemon(), "must not keep a finished process alive");
        t.join(60_000);
        assertFalse(t.isAlive(), "prelinking did not finish within 60 s");
    }

    @Test
    void theStartUpOrderNamesBoundFunctionsOnce() {
        // A misspelt name would silently be skipped and its function linked late.
        assertTrue(CuSymbols.TABLE.keySet().containsAll(Prelink.START_UP_ORDER), Prelink.START_UP_ORDER.toString());
        assertEquals(Prelink.START_UP_ORDER.size(), new java.util.HashSet<>(Prelink.START_UP_ORDER).size());
    }

    @Test
    void canBeTurnedOff() {
        System.setProperty(Prelink.DISABLE_PROPERTY, "true");
        try {
            assertNull(Prelink.startInBackground());
        } finally {
            System.clearProperty(Prelink.DISABLE_PROPERTY);
        }
    }
}
