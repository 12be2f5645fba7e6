package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A group whose members share no control block ({@link Supervisor#withoutBlock}): judged by exits alone, and each
 * member started with what its {@link MemberCommand} adds.
 */
class SupervisorWithoutBlockTest {
    private final TestSupport.StartedProcesses started = new TestSupport.StartedProcesses();

    @AfterEach
    void nothingLeft() {
        assertEquals(List.of(), started.endAll(2000), "children still running 2 s after the test (now killed)");
        assertNoSegmentsOfThisJvm();
    }

    private static MemberCommand child(String... steps) {
        return MemberCommand.of(JvmCommand.of(PlainChild.class.getName(), List.of(steps)));
    }

    @Test
    void aFailedMemberEndsTheOthersAfterTheGracePeriod() {
        TestSupport.Capture out = new TestSupport.Capture();
        Supervisor.Options options = Supervisor.Options.defaults().withOutput(out.stream, out.stream)
                .withGracePeriod(Duration.ofMillis(100));
        try (Supervisor sv = Supervisor.withoutBlock(2, options)) {
            sv.launch(List.of(child("wait"), child("exit:3")));
            started.addAll(sv.pids());
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertEquals(List.of(new Supervisor.Failure(1, "exit code 3"), new Supervisor.Failure(0,
                    "terminated after process 1 failed (killed by signal 15 (SIGTERM))")), outcome.failures(),
                    out.text());
            assertEquals(List.of(143, 3), outcome.exitCodes());
        }
    }

    @Test
    void membersStillRunningAtTheDeadlineAreKilledNamingIt() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (Supervisor sv = Supervisor.withoutBlock(1, Supervisor.Options.defaults().withOutput(out.stream,
                out.stream))) {
            sv.launch(List.of(child("wait")));
            started.addAll(sv.pids());
            Supervisor.Outcome outcome = sv.awaitAll(Deadline.after(Duration.ofSeconds(1), "--timeout"));
            assertEquals(List.of(new Supervisor.Failure(0, "timed out after 1 s (--timeout) waiting for it to finish")),
                    outcome.failures(), out.text());
        }
    }

    @Test
    @SuppressWarnings("try") // closes early to flush the output pumps
    void eachMemberGetsItsOwnEnvironmentAndItsOwnLineConsumer() {
        TestSupport.Capture out = new TestSupport.Capture();
        List<String> lines = new CopyOnWriteArrayList<>();
        Supervisor.Options options = Supervisor.Options.defaults().withOutput(out.stream, out.stream)
                .withEnvironment(Map.of("CUDAIPC4J_TEST_SHARED", "all"));
        try (Supervisor sv = Supervisor.withoutBlock(2, options)) {
            sv.launch(List.of(
                    child("env:CUDAIPC4J_TEST_SHARED", "env:CUDAIPC4J_TEST_OWN", "err:to the options")
                            .withEnvironment(Map.of("CUDAIPC4J_TEST_OWN", "zero")).withOutputLines(lines::add),
                    child("env:CUDAIPC4J_TEST_OWN")));
            started.addAll(sv.pids());
            assertTrue(sv.awaitAll(Duration.ofSeconds(60)).ok(), out.text());
            sv.close();
        }
        assertEquals(List.of("CUDAIPC4J_TEST_SHARED=all", "CUDAIPC4J_TEST_OWN=zero"), lines);
        assertTrue(out.text().contains("[0] to the options\n"), out.text());
        assertTrue(out.text().contains("[1] CUDAIPC4J_TEST_OWN=null\n"), out.text());
        assertFalse(out.text().contains("CUDAIPC4J_TEST_SHARED"), out.text());
    }

    @Test
    void aGroupWithoutBlockNeitherWatchesOneNorAdopts() {
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT);
             Supervisor sv = Supervisor.withoutBlock(1, Supervisor.Options.defaults())) {
            assertThrows(IllegalStateException.class, () -> sv.watch(block));
            assertThrows(IllegalStateException.class, () -> sv.adopt(0, ProcessHandle.current()));
            List<MemberCommand> none = new ArrayList<>();
            assertThrows(IllegalArgumentException.class, () -> sv.launch(none));
        }
    }
}
