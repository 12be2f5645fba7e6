package org.cudaipc4j.coord;

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
        IdleStrategy idle = new BackoffIdleStrategy(2, 1, 1_000, 1_000);
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
        assertThrows(IllegalArgumentException.class, () -> new BackoffIdleStrategy(-1, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new BackoffIdleStrategy(0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new BackoffIdleStrategy(0, 0, 2, 1));
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

    /** A wait with a deadline ends on time: a park of a second is cut to what is left. */
    @Test
    void idleUntilNeverParksPastTheDeadline() throws InterruptedException {
        IdleStrategy idle = IdleStrategy.periodic(Duration.ofSeconds(1));
        long start = System.nanoTime();
        idle.idleUntil(start + 20_000_000);
        long took = System.nanoTime() - start;
        assertTrue(took < 500_000_000, "parked " + took / 1_000_000 + " ms for a deadline 20 ms away");
    }

    /** An interrupted thread's wait ends at once, with the interruption, and its flag cleared. */
    @Test
    void anInterruptedWaitEndsWithInterruptedException() {
        IdleStrategy idle = IdleStrategy.periodic(Duration.ofSeconds(30));
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        assertThrows(InterruptedException.class, idle::idleInterruptibly);
        assertFalse(Thread.currentThread().isInterrupted());
        assertTrue(System.nanoTime() - start < 10_000_000_000L, "a park of 30 s was not cut short");
    }

    /** reset() starts the timed wait anew: spinning again, its parks from the shortest. */
    @Test
    void aTimedWaitStartsAnewOnReset() {
        TimedIdleStrategy idle = new TimedIdleStrategy();
        long start = System.nanoTime();
        while (System.nanoTime() - start < 3_000_000) {
            idle.idle();
        }
        idle.idle();
        assertTrue(idle.nextParkNanos() > 10_000, "parked at least once");
        idle.reset();
        assertEquals(10_000, idle.nextParkNanos());
    }
}
