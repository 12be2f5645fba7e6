package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A run the bench stops (its JVM ending) is reported as stopped, whenever the stop comes while it is awaited. */
class ToolLauncherTest {
    @Test
    void aRunStoppedWhileAwaitedIsReportedAsStoppedNotAsAClosedStream() throws Exception {
        ToolLauncher.Run run = new ToolLauncher.Run();
        Process p = run.start(new ProcessBuilder("sleep", "600"));
        // Stopping closes the run's streams, which await is reading or about to read.
        Thread stopper = Thread.ofPlatform().start(run::stop);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ToolLauncher.await(run, p, List.of("sleep", "600")));
        assertEquals("stopped: the bench is ending, and its run with it", e.getMessage());
        stopper.join();
        assertFalse(p.isAlive());
    }

    @Test
    void noRunStartsOnceStopped() {
        ToolLauncher.Run run = new ToolLauncher.Run();
        run.stop();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> run.start(new ProcessBuilder("sleep", "600")));
        assertEquals("the bench is ending: no run starts", e.getMessage());
    }

    /** A process the run left behind holds its output open: the run's outcome comes all the same, with its output. */
    @Test
    void outputHeldOpenByAProcessTheRunLeftDoesNotHoldTheOutcome() throws Exception {
        ToolLauncher.Run run = new ToolLauncher.Run();
        Process p = run.start(new ProcessBuilder("sh", "-c", "sleep 60 & echo $!"));
        long t0 = System.nanoTime();
        ToolLauncher.Outcome o = ToolLauncher.await(run, p, List.of("sh"));
        long took = System.nanoTime() - t0;
        long sleeper = Long.parseLong(o.stdout().strip());
        ProcessHandle.of(sleeper).ifPresent(ProcessHandle::destroyForcibly);
        assertEquals(0, o.exitCode());
        org.junit.jupiter.api.Assertions.assertTrue(
                took < java.util.concurrent.TimeUnit.SECONDS.toNanos(30), "took " + took / 1_000_000 + " ms");
    }
}
