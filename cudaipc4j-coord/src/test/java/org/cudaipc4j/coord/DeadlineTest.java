package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DeadlineTest {
    @Test
    void aDeadlineIsMadeFromADurationOnly() {
        assertEquals(0, Deadline.class.getConstructors().length, "no public constructor");
        // Every public method that takes a time takes a Duration, never a count of a unit.
        Arrays.stream(Deadline.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()))
                .forEach(m -> assertFalse(Arrays.asList(m.getParameterTypes()).contains(long.class), m.toString()));
    }

    @Test
    void anyPositiveDurationIsALimitTheLongestWaitForever() {
        Deadline forever = Deadline.after(Duration.ofSeconds(Long.MAX_VALUE), "--timeout");
        assertFalse(forever.hasPassed());
        assertTrue(forever.remaining().compareTo(Duration.ofDays(365L * 100)) > 0, forever.remaining().toString());
        assertEquals("timed out after 2562047788015215 h 30 min (--timeout) waiting for x", forever.timedOut("x"));
        assertEquals(Duration.ofSeconds(Long.MAX_VALUE), forever.limit());
        assertEquals("--timeout", forever.limitName());
    }

    @Test
    void aLimitMustBePositive() {
        assertEquals("--timeout must be positive, got PT0S",
                assertThrows(IllegalArgumentException.class, () -> Deadline.after(Duration.ZERO, "--timeout"))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> Deadline.after(Duration.ofMillis(-1), "x"));
    }

    @Test
    void aShortDeadlinePasses() throws InterruptedException {
        Deadline d = Deadline.after(Duration.ofMillis(1), "the test's limit");
        long start = System.nanoTime();
        while (!d.hasPassed()) {
            Thread.onSpinWait();
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(30).toNanos(), "never passed");
        }
        assertEquals(Duration.ZERO, d.remaining());
        assertEquals("timed out after 1 ms (the test's limit) waiting for y", d.timedOut("y"));
    }
}
