package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The supervisor's judgement of its members' heartbeats, in each of its waits, and the parent's own heartbeat. */
class SupervisorHeartbeatTest {
    @RegisterExtension
    final SupervisedChildren started = new SupervisedChildren();

    @Test
    void stoppedChildMissesItsHeartbeatAndIsKilled() throws Exception {
        TestSupport.Capture out = new TestSupport.Capture();
        Supervisor.Options options = Supervisor.Options.defaults().withOutput(out.stream, out.stream)
                .withHeartbeatTimeout(Duration.ofSeconds(3)).withGracePeriod(Duration.ofMillis(200));
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT); Supervisor sv = new Supervisor(block, options)) {
            started.start(sv, SupervisedChildren.sleepers(block));
            assertTrue(waitUntil(30_000, () -> block.lastHeartbeatMillis(1) != 0), "child 1 never joined");
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(started.get(1))).start();
            assertEquals(0, stop.waitFor());
            long t0 = System.nanoTime();
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(30));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            Supervisor.Failure first = outcome.failures().getFirst();
            assertEquals(1, first.index());
            java.util.regex.Matcher missed = java.util.regex.Pattern.compile("stopped responding for ([0-9.]+) s")
                    .matcher(first.reason());
            assertTrue(missed.matches() && Double.parseDouble(missed.group(1)) >= 3, first.reason());
            assertEquals(137, outcome.exitCodes().get(1));
            // The healthy sleeper got the grace period, then SIGTERM.
            assertEquals(new Supervisor.Failure(0, "terminated after process 1 failed (killed by signal 15 (SIGTERM))"),
                    outcome.failures().get(1));
            assertTrue(ms < 30_000, ms + " ms");
            assertEquals("aborted by the parent: process 1 failed (" + first.reason() + ")",
                    block.abortState().orElseThrow().describe());
        }
    }

    /**
     * The wait for the members' release judges heartbeats as awaitAll does: a member stopped while the others run
     * is failed and killed there, and the wait returns, instead of holding the parent to its deadline. While members
     * run, the parent heartbeats in the block.
     */
    @Test
    void awaitReleasedFailsAndKillsAStoppedMember() throws Exception {
        TestSupport.Capture out = new TestSupport.Capture();
        Supervisor.Options options = Supervisor.Options.defaults().withOutput(out.stream, out.stream)
                .withHeartbeatTimeout(Duration.ofSeconds(1)).withGracePeriod(Duration.ofMillis(200));
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT); Supervisor sv = new Supervisor(block, options)) {
            started.start(sv, SupervisedChildren.sleepers(block));
            assertTrue(waitUntil(30_000, () -> block.lastHeartbeatMillis(1) != 0), "child 1 never joined");
            long parentBeat = block.lastHeartbeatOf(ControlBlock.PARENT);
            assertTrue(parentBeat != 0, "no parent heartbeat while members run");
            assertTrue(waitUntil(30_000, () -> block.lastHeartbeatOf(ControlBlock.PARENT) != parentBeat),
                    "the parent's heartbeat never moved");
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(started.get(1))).start();
            assertEquals(0, stop.waitFor());
            long t0 = System.nanoTime();
            assertFalse(sv.awaitReleased(Duration.ofSeconds(60)), "released with a member stopped");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 30_000, ms + " ms");
            // Silence counts from the member's last heartbeat, which may come well before the SIGSTOP on a busy
            // machine: the limit is held to by the silence the line reports, not by the time since the signal.
            String abort = block.abortState().orElseThrow().describe();
            assertEquals("aborted by the parent: process 1 failed (stopped responding for ",
                    abort.replaceAll("[0-9.]+ s\\)$", ""));
            double silent = Double.parseDouble(abort.replaceAll(".* for ([0-9.]+) s\\)$", "$1"));
            assertTrue(silent >= 1.0, abort);
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(30));
            Supervisor.Failure first = outcome.failures().getFirst();
            assertEquals(1, first.index());
            assertTrue(first.reason().matches("stopped responding for [0-9.]+ s"), first.reason());
            assertEquals(137, outcome.exitCodes().get(1));
        }
    }
}
