package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** When a warm-up's rounds stop, on a clock of its own. */
class WarmUpRoundsTest {
    /**
     * A clock that advances by {@code step(i)} nanoseconds at its reading {@code i}: round {@code n} (from 0) is read
     * at {@code 2n} and {@code 2n + 1}, so it takes {@code step(2n + 1)}.
     */
    private static LongSupplier clock(java.util.function.IntToLongFunction step) {
        AtomicLong now = new AtomicLong();
        AtomicInteger readings = new AtomicInteger();
        return () -> now.addAndGet(step.applyAsLong(readings.getAndIncrement()));
    }

    @Test
    void allRoundsRunWhenTheyAreFast() {
        AtomicInteger runs = new AtomicInteger();
        int made = WarmUpRounds.repeat(() -> runs.incrementAndGet() > 0, 400, 20_000_000, clock(i -> 2_000));
        assertEquals(400, made);
        assertEquals(400, runs.get());
    }

    @Test
    void oneSlowRoundDoesNotStopThemButTheBudgetSpentDoes() {
        // round 4 takes 5 ms (a collection), the others 1 us: the sum stays under 20 ms
        int made = WarmUpRounds.repeat(() -> true, 400, 20_000_000, clock(i -> i == 9 ? 5_000_000 : 1_000));
        assertEquals(400, made);
        // rounds of 1 ms each: the budget is spent after 20
        assertEquals(20, WarmUpRounds.repeat(() -> true, 400, 20_000_000, clock(i -> 1_000_000)));
    }

    @Test
    void aRoundThatWasNotRefusedEndsThem() {
        AtomicInteger runs = new AtomicInteger();
        int made = WarmUpRounds.repeat(() -> runs.incrementAndGet() < 3, 400, 20_000_000, clock(i -> 1_000));
        assertEquals(3, made, "the third round returned false: it is the last");
    }
}
