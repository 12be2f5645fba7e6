package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdleStrategyTest {
    @Test
    void spinsThenYieldsThenAsksToBlock() {
        IdleStrategy idle = new IdleStrategy(2, 1, 1_000, 1_000);
        assertTrue(idle.isSpinning());
        idle.idle();
        idle.idle();
        assertFalse(idle.isSpinning());
        assertFalse(idle.shouldBlock(), "still yielding");
        idle.idle();
        assertTrue(idle.shouldBlock());
        idle.reset();
        assertTrue(idle.isSpinning());
        assertFalse(idle.shouldBlock());
    }

    @Test
    void refusesParametersThatMakeNoSense() {
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(-1, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(0, 0, 2, 1));
    }

    @Test
    void aTimedWaitComesBackEachTimeAndParksForGrowingPeriodsUpToAMillisecond() {
        TimedIdleStrategy idle = new TimedIdleStrategy();
        assertEquals(10_000, idle.nextParkNanos(), "no park yet");
        long start = System.nanoTime();
        // a generous limit: it only proves that the calls come back (through spinning, yielding and parking)
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            while (System.nanoTime() - start < 3_000_000) {
                idle.idle();
            }
            for (int i = 0; i < 10; i++) {
                idle.idle();
            }
        });
        assertEquals(1_000_000, idle.nextParkNanos(), "parked, each period twice the last, up to a millisecond");
    }
}
