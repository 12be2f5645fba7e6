package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The count of a watched process's stop, by a clock the test drives. */
class StopCountTest {
    private static final long MS = 1_000_000L;

    /** Counted from the first look that found it stopped; reported once longer than the limit. */
    @Test
    void aStopLongerThanTheLimitIsReportedCountedFromTheFirstLookThatSawIt() {
        StopCount count = new StopCount(Duration.ofSeconds(1));
        assertNull(count.look(0, false));
        reportedAfterTheLimit(count, 200 * MS);
    }

    /** A look that finds it running ends the count; the next stop counts from zero. */
    @Test
    void aProcessSeenRunningStartsTheCountAgain() {
        StopCount count = new StopCount(Duration.ofSeconds(1));
        long t = 0;
        for (int i = 0; i < 5; i++) {
            assertNull(count.look(t, true));
            t += 200 * MS;
        }
        assertNull(count.look(t, false));
        reportedAfterTheLimit(count, t + 200 * MS);
    }

    /**
     * A look that comes more than half the limit after the last one (the watcher did not run: its job was stopped
     * whole) says nothing of how long the other was stopped meanwhile: the count starts again there, and so does
     * the first look of all.
     */
    @Test
    void aLookAfterAPauseOfTheWatcherStartsTheCountAgain() {
        StopCount count = new StopCount(Duration.ofSeconds(1));
        assertNull(count.look(0, true));
        assertNull(count.look(200 * MS, true));
        reportedAfterTheLimit(count, 200 * MS + 5_000 * MS);
    }

    /**
     * Looks every 200 ms from {@code first} at a process stopped all along (a limit of 1 s): none reports it until
     * the one 1.2 s after {@code first}, which reports 1.2 s. So the count starts at {@code first}.
     */
    private static void reportedAfterTheLimit(StopCount count, long first) {
        long t = first;
        assertNull(count.look(t, true), "at " + t / MS + " ms");
        for (int i = 0; i < 5; i++) {
            t += 200 * MS;
            assertNull(count.look(t, true), "at " + t / MS + " ms");
        }
        t += 200 * MS;
        assertEquals(Duration.ofMillis(1200), count.look(t, true));
    }

    /** Under a small limit a gap of 250 ms still counts as looking on (the watch looks every 200 ms). */
    @Test
    void aSmallLimitStillCountsLooksOneWatchPeriodApart() {
        StopCount count = new StopCount(Duration.ofMillis(100));
        assertNull(count.look(0, true));
        assertEquals(Duration.ofMillis(240), count.look(240 * MS, true));
        StopCount paused = new StopCount(Duration.ofMillis(100));
        assertNull(paused.look(0, true));
        assertNull(paused.look(260 * MS, true));
    }
}
