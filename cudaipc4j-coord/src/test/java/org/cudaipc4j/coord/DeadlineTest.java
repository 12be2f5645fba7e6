package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
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

    private static final Duration SILENCE = Duration.ofSeconds(3);

    /** A deadline on {@code clock}, which the test moves. */

    private static Deadline onClock(AtomicLong clock, Duration limit) {
        return new Deadline(limit, "--timeout", clock::get, SILENCE);
    }

    private static void pass(AtomicLong clock, Duration d) {
        clock.addAndGet(d.toNanos());
    }

    @Test
    void aGapBetweenLooksOfMoreThanHalfTheSilenceLimitIsAPauseAndDoesNotCount() {
        AtomicLong clock = new AtomicLong(42);
        Deadline d = onClock(clock, Duration.ofSeconds(2));
        pass(clock, Duration.ofMillis(500));
        assertEquals(Duration.ofMillis(1500), d.remaining());
        pass(clock, Duration.ofSeconds(10)); // stopped with its job
        assertFalse(d.hasPassed());
        assertEquals(Duration.ofMillis(1500), d.remaining());
        // Looked at often, the time counts, and the deadline passes on time.
        for (int i = 0; i < 14; i++) {
            pass(clock, Duration.ofMillis(100));
            assertFalse(d.hasPassed(), "at look " + i);
        }
        pass(clock, Duration.ofMillis(100));
        assertTrue(d.hasPassed());
        assertEquals("timed out after 2 s (--timeout) waiting for x", d.timedOut("x"));
    }

    @Test
    void aGapOfHalfTheSilenceLimitOrLessCounts() {
        AtomicLong clock = new AtomicLong(-7);
        Deadline d = onClock(clock, Duration.ofSeconds(5));
        d.hasPassed();
        pass(clock, SILENCE.dividedBy(2));
        assertEquals(Duration.ofMillis(3500), d.remaining());
        pass(clock, SILENCE.dividedBy(2).plusNanos(1));
        assertEquals(Duration.ofMillis(3500), d.remaining(), "a pause");
    }

    /** A wait stopped with its job after it made its deadline and before it first looked (a short barrier round). */
    @Test
    void aDeadlinesMakingIsItsFirstLook() {
        AtomicLong clock = new AtomicLong(Long.MAX_VALUE - 1_000); // and the clock may wrap
        Deadline d = onClock(clock, Duration.ofSeconds(4));
        pass(clock, Duration.ofSeconds(10));
        assertEquals(Duration.ofSeconds(4), d.remaining(), "the stop before the first look counted");
        pass(clock, Duration.ofSeconds(1));
        assertEquals(Duration.ofSeconds(3), d.remaining());
        pass(clock, Duration.ofMillis(1000));
        pass(clock, Duration.ofMillis(1000));
        assertEquals(Duration.ofSeconds(3), d.remaining(), "two seconds unlooked: a pause");
    }

    @Test
    void aPassedDeadlineStaysPassedAfterAPause() {
        AtomicLong clock = new AtomicLong();
        Deadline d = onClock(clock, Duration.ofSeconds(1));
        for (int i = 0; i < 10; i++) {
            pass(clock, Duration.ofMillis(100));
            d.hasPassed();
        }
        assertTrue(d.hasPassed());
        pass(clock, Duration.ofMinutes(1));
        assertTrue(d.hasPassed());
        assertEquals(Duration.ZERO, d.remaining());
        assertEquals(Duration.ZERO, d.nextWait());
    }

    @Test
    void aWaitBlocksAQuarterOfTheSilenceLimitAtMostSoThatItIsNotTakenForAPause() {
        AtomicLong clock = new AtomicLong();
        Deadline d = onClock(clock, Duration.ofMinutes(2));
        assertEquals(SILENCE.dividedBy(4), d.nextWait());
        // A wait that blocks for each slice it is given, then looks again, spends the whole limit.
        long slices = 0;
        while (!d.hasPassed()) {
            pass(clock, d.nextWait());
            slices++;
        }
        assertEquals(Duration.ofMinutes(2).dividedBy(SILENCE.dividedBy(4)), slices);
        // Near the end, what is left.
        Deadline near = onClock(clock, Duration.ofMillis(300));
        assertEquals(Duration.ofMillis(300), near.nextWait());
    }

    @Test
    void aSmallSilenceLimitStillLetsTheDeadlinePassWhenLookedAtEvery100Ms() {
        AtomicLong clock = new AtomicLong();
        Deadline d = new Deadline(Duration.ofSeconds(1), "--timeout", clock::get, Duration.ofMillis(10));
        int looks = 0;
        while (!d.hasPassed()) {
            pass(clock, Duration.ofMillis(100));
            assertTrue(++looks <= 10, "never passed");
        }
        assertEquals(Duration.ofMillis(125), new Deadline(Duration.ofSeconds(1), "x", clock::get,
                Duration.ofMillis(10)).nextWait());
    }

    @Test
    void threadsLookingAtOneDeadlineCountAPauseOnce() throws InterruptedException {
        AtomicLong clock = new AtomicLong();
        Deadline d = onClock(clock, Duration.ofSeconds(10));
        d.hasPassed();
        pass(clock, Duration.ofSeconds(20));
        Thread[] lookers = new Thread[4];
        for (int t = 0; t < lookers.length; t++) {
            lookers[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 10_000; i++) {
                    d.remaining();
                }
            });
        }
        for (Thread t : lookers) {
            t.join();
        }
        assertEquals(Duration.ofSeconds(10), d.remaining());
        pass(clock, Duration.ofSeconds(1));
        assertEquals(Duration.ofSeconds(9), d.remaining());
    }
}
