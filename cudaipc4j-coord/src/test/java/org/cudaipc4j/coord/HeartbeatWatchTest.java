package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The judgement of heartbeats on a clock the test sets ({@code now} is the watcher's): silence beyond the limit,
 * a look long after the last one (the watcher was stopped) that blames nobody, who a child blames, and the wait for
 * the parent's publications.
 */
class HeartbeatWatchTest {
    private static final Duration LIMIT = Duration.ofSeconds(3);
    private static final long S = 1_000_000_000L;

    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    /** A heartbeat written at a millisecond the last one was not (two in the same millisecond look the same). */
    private static void beat(ControlBlock block, int process) {
        long last = block.lastHeartbeatOf(process);
        while (System.currentTimeMillis() <= last) {
            Thread.onSpinWait();
        }
        if (process == ControlBlock.PARENT) {
            block.parentHeartbeat();
        } else {
            block.heartbeat(process);
        }
    }

    /** Looks every second from {@code from} to {@code to} (whole seconds), as a watcher that keeps running does. */
    private static void lookEverySecond(HeartbeatWatch watch, long from, long to) {
        for (long t = from; t <= to; t++) {
            assertTrue(watch.look(t * S), "the look at " + t + " s came in time");
        }
    }

    @Test
    void aHeartbeatUnchangedForLongerThanTheLimitIsSilence() {
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT)) {
            beat(block, 1);
            HeartbeatWatch watch = new HeartbeatWatch(block, LIMIT);
            assertFalse(watch.look(0), "the first look is the start");
            lookEverySecond(watch, 1, 3);
            assertNull(watch.silence(1), "silent for the limit, not longer");
            assertTrue(watch.look(3 * S + 1));
            assertEquals(Duration.ofNanos(3 * S + 1), watch.silence(1));
            assertNull(watch.silence(0), "no heartbeat yet: not judged");
            assertNull(watch.silence(ControlBlock.PARENT), "no heartbeat yet: not judged");
            beat(block, 1);
            assertTrue(watch.look(4 * S));
            assertNull(watch.silence(1), "a new heartbeat starts the count again");
        }
    }

    @Test
    void aLookLongAfterTheLastBlamesNobodyAndCountsAgain() {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            beat(block, 1);
            HeartbeatWatch watch = new HeartbeatWatch(block, LIMIT);
            assertFalse(watch.look(0), "the first look is the start");
            lookEverySecond(watch, 1, 1);
            // The watcher was stopped for 10 s, and so was process 1, whose heartbeat has not resumed yet.
            assertFalse(watch.look(11 * S), "a look 10 s after the last: this process did not run");
            assertNull(watch.silence(1));
            lookEverySecond(watch, 12, 14);
            assertNull(watch.silence(1), "3 s since the restart, not longer");
            assertTrue(watch.look(14 * S + S / 2));
            assertEquals(Duration.ofMillis(3500), watch.silence(1), "counted from the restart");
            // Just over half the limit between two looks is a stop too.
            assertFalse(watch.look(16 * S + 1));
            assertNull(watch.silence(1));
        }
    }

    @Test
    void aChildBlamesItsParentWhenItHeartbeatsElseASilentSibling() {
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT)) {
            block.setPid(2, 4242);
            beat(block, 1);
            beat(block, 2);
            HeartbeatWatch watch = new HeartbeatWatch(block, LIMIT);
            assertNull(watch.stoppedResponding(0, "waited", 0));
            for (long t = 1; t <= 3; t++) {
                beat(block, 1);
                assertNull(watch.stoppedResponding(0, "waited", t * S));
            }
            assertEquals("process 2 (pid 4242) stopped responding for 3.5 s while process 0 waited in barrier round 7",
                    watch.stoppedResponding(0, "waited in barrier round 7", 3 * S + S / 2));
            block.setStatus(2, ProcessStatus.DONE);
            assertNull(watch.stoppedResponding(0, "waited", 4 * S), "a process that is done may stop beating");
            block.setStatus(2, ProcessStatus.RUNNING);

            // A parent that heartbeats judges its children itself: only its own silence counts.
            beat(block, ControlBlock.PARENT);
            assertNull(watch.stoppedResponding(0, "waited", 5 * S));
            for (long t = 6; t <= 8; t++) {
                assertNull(watch.stoppedResponding(0, "waited", t * S));
            }
            assertEquals("the parent (pid " + ProcessHandle.current().pid() + ") stopped responding for 3.1 s while"
                    + " process 0 waited for the device", watch.stoppedResponding(0, "waited for the device",
                    8 * S + S / 10));
        }
    }

    /** A child's wait for what its parent publishes ends once the parent, which heartbeated, is silent. */
    @Test
    void theWaitForTheParentsPublicationEndsWhenItStopsResponding() {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            block.parentHeartbeat(); // once, then never again
            long t0 = System.nanoTime();
            CoordinationException e = assertThrows(CoordinationException.class,
                    () -> block.awaitReady(Duration.ofSeconds(60), "handles"));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(e.getMessage().matches("the parent \\(pid " + ProcessHandle.current().pid() + "\\) stopped"
                    + " responding for [0-9.]+ s before publishing its handles"), e.getMessage());
            assertTrue(ms >= Liveness.silenceLimit().toMillis() && ms < 30_000, ms + " ms");
        }
    }
}
