package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void aTimedWaitReturnsEachTimeItIsAsked() {
        TimedIdleStrategy idle = new TimedIdleStrategy();
        long start = System.nanoTime();
        while (System.nanoTime() - start < 3_000_000) {
            idle.idle(); // through spinning, yielding and parking: each call comes back
        }
    }
}
