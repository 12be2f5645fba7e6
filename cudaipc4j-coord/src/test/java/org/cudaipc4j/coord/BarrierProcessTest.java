package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The barrier across real processes: many rounds under an invariant, and two groups side by side. */
class BarrierProcessTest {
    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    @Test
    void eightProcessesTenThousandRoundsNobodyLeavesEarly() {
        Outcome result = runStressGroup(8, 10_000, Duration.ofSeconds(90));
        assertTrue(result.outcome.ok(), "failures " + result.outcome.failures() + "\n" + result.output);
        assertEquals(List.of(0, 0, 0, 0, 0, 0, 0, 0), result.outcome.exitCodes());
        for (int i = 0; i < 8; i++) {
            assertTrue(result.output.contains("[" + i + "] ok 10000 rounds"), result.output);
        }
        System.out.printf("8 processes x 10,000 rounds: %d ms including JVM start-up%n", result.millis);
    }

    @Test
    void twoGroupsAtOnceDoNotInterfere() throws Exception {
        CompletableFuture<Outcome> a = CompletableFuture.supplyAsync(() -> runStressGroup(3, 3000, Duration.ofSeconds(90)));
        CompletableFuture<Outcome> b = CompletableFuture.supplyAsync(() -> runStressGroup(4, 3000, Duration.ofSeconds(90)));
        Outcome ra = a.get(120, TimeUnit.SECONDS);
        Outcome rb = b.get(120, TimeUnit.SECONDS);
        assertTrue(ra.outcome.ok(), ra.outcome + "\n" + ra.output);
        assertTrue(rb.outcome.ok(), rb.outcome + "\n" + rb.output);
        assertNotEquals(ra.segment, rb.segment);
        assertEquals("rw-------", ra.mode);
        assertEquals("rw-------", rb.mode);
    }

    /** Two groups of real processes barrier side by side; one is aborted, the other keeps going. */
    @Test
    @SuppressWarnings("try") // the supervisors close with the test, after their outcomes are read
    void abortInOneGroupLeavesTheOtherRunning() {
        TestSupport.Capture outA = new TestSupport.Capture();
        TestSupport.Capture outB = new TestSupport.Capture();
        try (ControlBlock a = ControlBlock.create(2, TestSupport.SLOT);
             ControlBlock b = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor svA = new Supervisor(a, Supervisor.Options.defaults().withOutput(outA.stream, outA.stream));
             Supervisor svB = new Supervisor(b, Supervisor.Options.defaults().withOutput(outB.stream, outB.stream))) {
            svA.start(LoopingChild.class.getName(), forever(a));
            svB.start(LoopingChild.class.getName(), forever(b));
            assertTrue(TestSupport.waitUntil(60_000,
                    () -> TestSupport.round(a, 1) >= 10 && TestSupport.round(b, 1) >= 10),
                    "both groups run rounds\n" + outA.text() + outB.text());

            a.abort(1, "group a failed");
            Supervisor.Outcome outcomeA = svA.awaitAll(Duration.ofSeconds(60));
            assertEquals(List.of(3, 3), outcomeA.exitCodes(), "group a's members leave their barrier\n" + outA.text());
            assertTrue(outA.text().contains("group a failed"), outA.text());

            // Group b goes on after every member of group a has left.
            long roundAfterAbort = TestSupport.round(b, 0);
            assertTrue(TestSupport.waitUntil(60_000, () -> TestSupport.round(b, 0) >= roundAfterAbort + 100),
                    "group b stopped at round " + TestSupport.round(b, 0) + "\n" + outB.text());
            assertTrue(b.abortState().isEmpty(), "group b is not aborted");
            assertTrue(svB.pids().stream().allMatch(TestSupport::running), "group b's members still run");
            b.abort(0, "the test is over");
            assertEquals(List.of(3, 3), svB.awaitAll(Duration.ofSeconds(60)).exitCodes(), outB.text());
        }
    }

    /** Arguments of LoopingChild members that barrier until their group ends. */
    private static List<List<String>> forever(ControlBlock block) {
        return List.of(List.of(block.name(), "0", "0"), List.of(block.name(), "1", "0"));
    }

    record Outcome(Supervisor.Outcome outcome, String output, String segment, String mode, long millis) {}

    @SuppressWarnings("try") // closes the supervisor early to collect all output before returning
    static Outcome runStressGroup(int n, int rounds, Duration timeout) {
        TestSupport.Capture out = new TestSupport.Capture();
        long t0 = System.nanoTime();
        try (ControlBlock block = ControlBlock.create(n, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(block.segment().path(),
                    LinkOption.NOFOLLOW_LINKS));
            List<List<String>> args = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                args.add(List.of(block.name(), Integer.toString(i), Integer.toString(rounds)));
            }
            sv.start(BarrierStressChild.class.getName(), args);
            Supervisor.Outcome outcome = sv.awaitAll(timeout);
            sv.close();
            return new Outcome(outcome, out.text(), block.name(), mode, (System.nanoTime() - t0) / 1_000_000);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
