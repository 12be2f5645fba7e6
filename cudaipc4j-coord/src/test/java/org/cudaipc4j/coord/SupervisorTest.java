package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.SupervisedChildren.args;
import static org.cudaipc4j.coord.TestSupport.running;
import static org.cudaipc4j.coord.TestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.OpenDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The supervisor with real child JVMs: success, failures of every kind, which failure is blamed, timeouts, output.
 *
 * <p>{@link #childKilledAtARandomMomentStopsTheGroup} picks its victim and moment from a seed that it prints
 * ({@code seed N}); {@code -Dcudaipc4j.test.seed=N} on the Maven command line replays that choice.
 */
class SupervisorTest {
    @RegisterExtension
    final SupervisedChildren started = new SupervisedChildren();

    @Test
    void inheritsOnlyJvmOptionsBeforeTheMainClass() {
        List<String> parent = List.of("-Xmx512m", "-Dfoo=bar", "-XX:+UseG1GC", "-cp", "a.jar:b.jar",
                "--enable-native-access=ALL-UNNAMED", "-agentlib:jdwp=transport=dt_socket,server=y",
                "-Xrunjdwp:transport=dt_socket", "-Xdebug", "-javaagent:x.jar", "-XX:AOTCacheOutput=app.aot",
                "-XX:AOTCache=app.aot", "-XX:StartFlightRecording:filename=app.jfr",
                "-XX:FlightRecorderOptions:stackdepth=96", "-ea", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "@argfile", "-Djava.class.path=x", "org.example.Main", "-Dapp=arg", "-Xignored");
        assertEquals(List.of("-Xmx512m", "-Dfoo=bar", "-XX:+UseG1GC", "-XX:AOTCache=app.aot", "-ea"),
                JvmCommand.inheritedJvmOptions(parent));
        assertEquals(List.of("-Dx=1"), JvmCommand.inheritedJvmOptions(List.of("-Dx=1", "-jar", "app.jar", "-Dy=2")));
        assertEquals(List.of("-Dx=1"), JvmCommand.inheritedJvmOptions(List.of("-Dx=1", "-m", "mod/Main", "-Dy=2")));
        assertEquals(List.of(), JvmCommand.inheritedJvmOptions(List.of()));
    }

    @Test
    void childCommandIsOurJavaOurClassPathAndNativeAccess() {
        List<String> cmd = JvmCommand.base();
        assertTrue(cmd.getFirst().endsWith("/java"), cmd.getFirst());
        assertEquals(System.getProperty("java.class.path"), cmd.getLast());
        assertEquals("-cp", cmd.get(cmd.size() - 2));
        assertTrue(cmd.contains("--enable-native-access=ALL-UNNAMED"), cmd.toString());
    }

    @Test
    void exitCodesAndSignalsAreDescribed() {
        assertEquals("exit code 1", Supervisor.describeExit(1));
        assertEquals("exit code 128", Supervisor.describeExit(128));
        assertEquals("killed by signal 9 (SIGKILL)", Supervisor.describeExit(137));
        assertEquals("killed by signal 15 (SIGTERM)", Supervisor.describeExit(143));
        assertEquals("killed by signal 11 (SIGSEGV)", Supervisor.describeExit(139));
        assertEquals("killed by signal 6 (SIGABRT)", Supervisor.describeExit(134));
        assertEquals("killed by signal 40", Supervisor.describeExit(168));
        assertEquals("exit code 255", Supervisor.describeExit(255));
    }

    @Test
    @SuppressWarnings("try") // closes early to flush the output pumps, and twice to check idempotence
    void healthyGroupSucceedsWithPrefixedOutput() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            started.start(sv, args(block, "200"));
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertTrue(outcome.ok(), outcome + "\n" + out.text());
            assertEquals(List.of(0, 0, 0), outcome.exitCodes());
            sv.close();
            for (int i = 0; i < 3; i++) {
                assertTrue(out.text().contains("[" + i + "] done 200\n"), out.text());
                assertEquals(ProcessStatus.DONE, block.status(i));
                assertEquals(started.get(i), block.pid(i));
            }
            assertTrue(block.abortState().isEmpty());
        }
    }

    /**
     * Output to {@code out}, and a grace period (30 s) that only bounds a hang: the siblings of a failed child must
     * leave their barriers by themselves, however slowly a loaded machine starts their JVMs.
     */
    private static Supervisor.Options leavingByThemselves(TestSupport.Capture out) {
        return Supervisor.Options.defaults().withOutput(out.stream, out.stream).withGracePeriod(Duration.ofSeconds(30));
    }

    @Test
    void nonZeroExitAbortsTheOthersWhoStopQuickly() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, leavingByThemselves(out))) {
            List<List<String>> args = args(block, "0");
            args.set(1, List.of(block.name(), "1", "0", "exit:7"));
            started.start(sv, args);
            long t0 = System.nanoTime();
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertFalse(outcome.ok());
            // Not luck: the siblings leave only once they have seen member 1 dead (every thread of it ended, the
            // moment the kernel queues its pidfd) or the abort that followed, so its exit comes first in the
            // kernel's order, however late the supervisor looked.
            assertEquals(new Supervisor.Failure(1, "exit code 7"), outcome.failures().getFirst(), outcome.toString());
            // The siblings noticed (abort word or dead sibling) and left their barrier by themselves.
            assertEquals(List.of(3, 7, 3), outcome.exitCodes(), out.text());
            // Output is drained before awaitAll returns, and a second call tells the same story.
            assertTrue(out.text().contains("[0] barrier failed: "), out.text());
            assertTrue(out.text().contains("[2] barrier failed: "), out.text());
            assertTrue(ms < 45_000, ms + " ms");
            assertEquals(outcome, sv.awaitAll(Duration.ofSeconds(1)));
        }
    }

    /**
     * The member that exits first is blamed, whatever its index and however late the supervisor looks: member
     * {@code first} exits with 7, and only once this test has seen that exit does member {@code second} exit with 5.
     * {@code awaitAll} starts after both, so nothing but the order of the exits tells them apart.
     */
    @ParameterizedTest(name = "member {0} exits first, then member {1} ({2})")
    @CsvSource({"0, 1, started", "1, 0, started", "0, 1, adopted", "1, 0, adopted"})
    void theMemberThatExitedFirstIsBlamed(int first, int second, String how) throws Exception {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, leavingByThemselves(out))) {
            List<List<String>> args = args(block, "0");
            args.get(first).add("exitwhen:7");
            args.get(second).add("exitwhen:5");
            if (how.equals("started")) {
                started.start(sv, args);
            } else {
                for (int i = 0; i < 2; i++) {
                    sv.adopt(i, startedElsewhere(args.get(i)));
                }
            }
            List<ProcessHandle> members = sv.pids().stream().map(pid -> ProcessHandle.of(pid).orElseThrow()).toList();
            for (int i = 0; i < 2; i++) {
                int index = i;
                assertTrue(waitUntil(30_000, () -> TestSupport.round(block, index) == 1),
                        "member " + i + " did not join\n" + out.text());
            }
            TestSupport.setRound(block, first, -1);
            members.get(first).onExit().get(30, TimeUnit.SECONDS);
            TestSupport.setRound(block, second, -1);
            members.get(second).onExit().get(30, TimeUnit.SECONDS);

            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertEquals(List.of(first, second), outcome.failures().stream().map(Supervisor.Failure::index).toList(),
                    outcome.toString());
            if (how.equals("started")) {
                assertEquals(new Supervisor.Failure(first, "exit code 7"), outcome.failures().getFirst());
                assertEquals(new Supervisor.Failure(second, "exit code 5"), outcome.failures().get(1));
                assertEquals(first == 0 ? List.of(7, 5) : List.of(5, 7), outcome.exitCodes());
            }
            assertEquals("aborted by the parent: process " + first + " failed ("
                    + outcome.failures().getFirst().reason() + ")", block.abortState().orElseThrow().describe());
        }
    }

    @Test
    void childThatFailsOnPurposeAbortsTheGroupWithItsOwnReason() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, leavingByThemselves(out))) {
            List<List<String>> args = args(block, "0");
            args.set(2, List.of(block.name(), "2", "50", "fail:verification mismatch at 4096"));
            started.start(sv, args);
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertEquals(new Supervisor.Failure(2, "exit code 1"), outcome.failures().getFirst(), outcome.toString());
            assertEquals(List.of(3, 3, 1), outcome.exitCodes(), out.text());
            assertEquals(new ControlBlock.Abort(2, "verification mismatch at 4096"), block.abortState().orElseThrow());
            assertEquals(ProcessStatus.FAILED, block.status(2));
            assertTrue(out.text().contains("[0] barrier failed: barrier aborted by process 2: verification mismatch at 4096"),
                    out.text());
        }
    }

    @Test
    void awaitReleasedReturnsWhileTheChildrenStillTearDown() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            List<List<String>> args = args(block, "20");
            for (List<String> a : args) {
                a.add("release:hold");
            }
            started.start(sv, args);
            assertTrue(sv.awaitReleased(Duration.ofSeconds(60)), out.text());
            // Both are still lingering after their release: the parent did not wait for their exits.
            for (long pid : sv.pids()) {
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
            }
            for (int i = 0; i < 2; i++) {
                TestSupport.setRound(block, i, -1); // now they may leave
            }
            assertTrue(sv.awaitAll(Duration.ofSeconds(60)).ok(), out.text());
        }
    }

    @Test
    @SuppressWarnings("try") // closes early to flush the output pumps
    void childrenStartedBeforeTheirBlockWaitForItThenRunAsUsual() {
        TestSupport.Capture out = new TestSupport.Capture();
        String name = ControlBlock.newName();
        try (Supervisor sv = new Supervisor(3, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            List<List<String>> args = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                args.add(List.of(name, Integer.toString(i), "50", "loop", "30000"));
            }
            started.start(sv, args);
            assertThrows(IllegalStateException.class, () -> sv.awaitAll(Duration.ofSeconds(1)));
            // They wait for the block before it exists (else this tests nothing).
            awaitWaitingForTheBlock(out, name, 3);
            try (ControlBlock block = ControlBlock.create(name, 3, TestSupport.SLOT)) {
                sv.watch(block);
                Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
                assertTrue(outcome.ok(), outcome + "\n" + out.text());
                sv.close();
                for (int i = 0; i < 3; i++) {
                    assertTrue(out.text().contains("[" + i + "] done 50\n"), out.text());
                    assertEquals(started.get(i), block.pid(i));
                }
            }
        }
    }

    @Test
    void aChildWhoseBlockNeverComesLeavesAtItsTimeoutWithTheReason() {
        TestSupport.Capture out = new TestSupport.Capture();
        String name = ControlBlock.newName();
        try (Supervisor sv = new Supervisor(1, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            sv.start(LoopingChild.class.getName(), List.of(List.of(name, "0", "1", "loop", "300")));
            started.addAll(sv.pids());
            assertTrue(waitUntil(30_000, () -> !running(started.getFirst())), out.text());
            assertTrue(waitUntil(2_000, () -> out.text().contains("cannot join: control block " + name
                    + " was not created within 300 ms")), out.text());
        }
    }

    @Test
    @SuppressWarnings("try") // closes early to flush the output pumps
    void childrenGetTheExtraEnvironmentOnTopOfOurs() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream)
                     .withEnvironment(Map.of("CUDAIPC4J_TEST_VARIABLE", "42")))) {
            sv.start(LoopingChild.class.getName(), List.of(List.of(block.name(), "0", "1", "env:CUDAIPC4J_TEST_VARIABLE")));
            started.addAll(sv.pids());
            assertTrue(sv.awaitAll(Duration.ofSeconds(60)).ok(), out.text());
            sv.close();
            assertTrue(out.text().contains("[0] CUDAIPC4J_TEST_VARIABLE=42\n"), out.text());
        }
    }

    @Test
    void closingBeforeTheBlockExistsKillsTheWaitingChildren() {
        TestSupport.Capture out = new TestSupport.Capture();
        String name = ControlBlock.newName();
        Supervisor sv = new Supervisor(2, Supervisor.Options.defaults().withOutput(out.stream, out.stream));
        sv.start(LoopingChild.class.getName(), List.of(List.of(name, "0", "1", "loop", "60000"),
                List.of(name, "1", "1", "loop", "60000")));
        started.addAll(sv.pids());
        awaitWaitingForTheBlock(out, name, 2);
        sv.close();
        for (long pid : started) {
            assertFalse(running(pid), "pid " + pid);
        }
    }

    @Test
    void aSupervisorWatchesOneBlockOfItsSize() {
        try (ControlBlock two = ControlBlock.create(2, TestSupport.SLOT); ControlBlock three = ControlBlock.create(3, TestSupport.SLOT)) {
            Supervisor sv = new Supervisor(3, Supervisor.Options.defaults());
            assertThrows(IllegalArgumentException.class, () -> sv.watch(two));
            sv.watch(three);
            assertThrows(IllegalStateException.class, () -> sv.watch(three));
            assertThrows(IllegalArgumentException.class, () -> new Supervisor(0, Supervisor.Options.defaults()));
            sv.close();
        }
    }

    @Test
    void awaitReleasedGivesUpWhenAChildFails() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            List<List<String>> args = args(block, "5");
            args.get(0).add("release:0");
            args.set(1, List.of(block.name(), "1", "5", "fail:cannot open a handle"));
            started.start(sv, args);
            assertFalse(sv.awaitReleased(Duration.ofSeconds(60)), out.text());
            assertFalse(sv.awaitAll(Duration.ofSeconds(60)).ok());
        }
    }

    @Test
    void childKilledAtARandomMomentStopsTheGroup() {
        long seed = Long.getLong("cudaipc4j.test.seed", System.nanoTime());
        System.out.println("childKilledAtARandomMomentStopsTheGroup: seed " + seed);
        Random random = new Random(seed);
        int n = 4;
        int victim = random.nextInt(n);
        int moreRounds = random.nextInt(1000);
        String replay = " (seed " + seed + ", victim " + victim + ", after " + moreRounds + " more rounds)";
        TestSupport.Capture out = new TestSupport.Capture();
        String name;
        try (ControlBlock block = ControlBlock.create(n, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, leavingByThemselves(out))) {
            name = block.name();
            started.start(sv, args(block, "0"));
            for (int i = 0; i < n; i++) {
                int index = i;
                assertTrue(waitUntil(30_000, () -> TestSupport.round(block, index) > 100), "child " + i + " not looping"
                        + replay);
            }
            // A random moment: a random number of rounds on from here.
            long target = TestSupport.round(block, victim) + moreRounds;
            assertTrue(waitUntil(30_000, () -> TestSupport.round(block, victim) >= target), "rounds stalled" + replay);
            long victimPid = started.get(victim);
            long killedAt = System.nanoTime();
            ProcessHandle.of(victimPid).orElseThrow().destroyForcibly();

            List<ProcessHandle> others = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (i != victim) {
                    others.add(ProcessHandle.of(started.get(i)).orElseThrow());
                }
            }
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(30));
            // awaitAll returned, so all are reaped; the bound only proves it (timing: scripts/gpu-chaos.sh).
            assertTrue(waitUntil(20_000 - (System.nanoTime() - killedAt) / 1_000_000,
                    () -> others.stream().noneMatch(h -> running(h.pid()))),
                    "siblings still running 20 s after the kill" + replay + ":\n" + out.text());
            // Not luck: the siblings leave only once they have seen the victim dead (every thread of it ended) or
            // the abort that followed, so its exit comes first in the kernel's order.
            assertEquals(new Supervisor.Failure(victim, "killed by signal 9 (SIGKILL)"), outcome.failures().getFirst(),
                    outcome + replay);
            assertEquals(137, outcome.exitCodes().get(victim), replay);
            for (int i = 0; i < n; i++) {
                if (i != victim) {
                    assertEquals(3, outcome.exitCodes().get(i), "sibling " + i + " should leave its barrier itself"
                            + replay + ":\n" + out.text());
                }
            }
            assertTrue(out.text().contains("(pid " + victimPid + ") died")
                    || out.text().contains("aborted by the parent: process " + victim + " failed"),
                    replay + out.text());
        }
        assertFalse(java.nio.file.Files.exists(SharedSegment.directory().resolve(name)));
    }

    @Test
    void awaitAllNeverHangsPastItsTimeout() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            started.start(sv, SupervisedChildren.sleepers(block));
            long t0 = System.nanoTime();
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(2));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // Never before the limit; the upper bound only proves it does not hang (timing belongs to benchmarks).
            assertTrue(ms >= 2000 && ms < 30_000, ms + " ms");
            String reason = "timed out after 2 s (the supervisor's limit) waiting for it to finish (its status was ";
            assertEquals(2, outcome.failures().size(), outcome.failures().toString());
            for (int i = 0; i < 2; i++) {
                assertEquals(i, outcome.failures().get(i).index());
                assertTrue(outcome.failures().get(i).reason().startsWith(reason), outcome.failures().get(i).reason());
            }
            assertEquals(List.of(137, 137), outcome.exitCodes());
            for (long pid : sv.pids()) {
                assertFalse(running(pid));
            }
        }
    }

    @Test
    void childThatCannotJoinFailsWithItsReason() {
        TestSupport.Capture out = new TestSupport.Capture();
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            sv.start(LoopingChild.class.getName(), List.of(List.of(block.name(), "5")));
            started.addAll(sv.pids());
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertEquals(List.of(new Supervisor.Failure(0, "exit code 4")), outcome.failures());
            assertTrue(out.text().contains("[0] cannot join: process index 5 is out of range 0..0 of control block "
                    + block.name()), out.text());
        }
    }

    @Test
    @SuppressWarnings("try")
    void unprefixedOutputAndMisuseAreHandled() {
        TestSupport.Capture out = new TestSupport.Capture();
        Supervisor.Options options = Supervisor.Options.defaults().withOutput(out.stream, out.stream)
                .withPrefixOutput(false);
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT); Supervisor sv = new Supervisor(block, options)) {
            assertThrows(IllegalStateException.class, () -> sv.awaitAll(Duration.ofSeconds(1)));
            assertThrows(IllegalArgumentException.class, () -> sv.start(LoopingChild.class.getName(), List.of()));
            assertThrows(IllegalArgumentException.class, () -> sv.start(LoopingChild.class.getName(),
                    List.of(List.of(), List.of())));
            started.start(sv, args(block, "3"));
            assertThrows(IllegalStateException.class, () -> sv.start(LoopingChild.class.getName(), args(block, "3")));
            assertTrue(sv.awaitAll(Duration.ofSeconds(60)).ok());
            sv.close();
            sv.close();
            assertEquals("done 3\n", out.text());
        }
        assertThrows(IllegalArgumentException.class, () -> Supervisor.Options.defaults()
                .withHeartbeatTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> Supervisor.Options.defaults()
                .withGracePeriod(Duration.ofSeconds(-1)));
    }

    @Test
    @SuppressWarnings("try") // closes inside the block to look at the descriptors afterwards
    void aMemberThatCannotBeStartedIsNamedAndTheOthersAreEnded() {
        TestSupport.Capture out = new TestSupport.Capture();
        String missing = "/nonexistent-cudaipc4j-test/no-such-program";
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            List<List<String>> commands = new ArrayList<>();
            for (List<String> a : args(block, "0")) {
                commands.add(JvmCommand.from(JvmCommand.base(), List.of(), LoopingChild.class.getName(), a));
            }
            commands.set(1, List.of(missing, "--any-argument"));
            CoordinationException e = assertThrows(CoordinationException.class, () -> sv.start(commands));
            assertTrue(e.getMessage().startsWith("cannot start process 1 (" + missing + "): ")
                    && e.getMessage().contains("No such file or directory") && !e.getMessage().contains("\n"),
                    e.getMessage());
            // Member 0 was started before and is ended before start throws; member 2 never was.
            List<Long> pids = sv.pids();
            started.addAll(pids);
            assertEquals(1, pids.size(), pids.toString());
            assertFalse(running(pids.getFirst()), "member 0 still running after the failed start");
            List<Integer> fds = sv.descriptors();
            assertFalse(fds.isEmpty(), "the supervisor watches member 0's exit through a pidfd");
            sv.close();
            assertEquals(List.of(), sv.descriptors());
            for (int fd : fds) {
                String now = OpenDescriptors.target(fd); // null: closed
                assertFalse("anon_inode:[pidfd]".equals(now) || "anon_inode:[eventpoll]".equals(now),
                        "fd " + fd + " still " + now);
            }
            assertThrows(IllegalStateException.class, () -> sv.start(commands));
        }
    }

    @Test
    void aMemberWhoseMainClassIsMissingFailsTheGroup() {
        TestSupport.Capture out = new TestSupport.Capture();
        String missing = "org.cudaipc4j.coord.NoSuchMainClass";
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, leavingByThemselves(out))) {
            List<List<String>> commands = new ArrayList<>();
            for (List<String> a : args(block, "0")) {
                commands.add(JvmCommand.from(JvmCommand.base(), List.of(), LoopingChild.class.getName(), a));
            }
            commands.set(1, JvmCommand.from(JvmCommand.base(), List.of(), missing, List.of()));
            sv.start(commands);
            started.addAll(sv.pids());
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            // Member 1 never joins, so its siblings leave only after the abort that followed its exit.
            assertEquals(new Supervisor.Failure(1, "exit code 1"), outcome.failures().getFirst(), outcome.toString());
            assertEquals(List.of(3, 1, 3), outcome.exitCodes(), out.text());
            assertTrue(out.text().contains("[1] Error: Could not find or load main class " + missing), out.text());
        }
    }

    @Test
    void adoptedProcessesThatFinishTheirWorkSucceed() throws Exception {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults())) {
            List<List<String>> args = args(block, "20");
            for (int i = 0; i < 2; i++) {
                sv.adopt(i, startedElsewhere(args.get(i)));
            }
            assertThrows(IllegalStateException.class, () -> sv.adopt(1, ProcessHandle.current()));
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertTrue(outcome.ok(), outcome.toString());
            assertEquals(List.of(0, 0), outcome.exitCodes(), "DONE in their slots stands for exit code 0");
            assertEquals(started, sv.pids());
        }
    }

    @Test
    void anAdoptedProcessThatLeavesWithoutFinishingFailsTheGroup() throws Exception {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults())) {
            List<List<String>> args = args(block, "0");
            args.set(1, List.of(block.name(), "1", "0", "exit:7"));
            for (int i = 0; i < 2; i++) {
                sv.adopt(i, startedElsewhere(args.get(i)));
            }
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
            assertFalse(outcome.ok());
            Supervisor.Failure left = outcome.failures().stream().filter(f -> f.index() == 1).findFirst()
                    .orElseThrow(() -> new AssertionError("member 1 did not fail: " + outcome));
            assertTrue(left.reason().contains("not started here: exit code unknown"), left.reason());
            assertTrue(block.abortState().isPresent(), "the group was aborted, so member 0 left its rounds");
        }
    }

    /** A child started by someone other than the supervisor (here, this test), for {@link Supervisor#adopt}. */
    private ProcessHandle startedElsewhere(List<String> args) throws java.io.IOException {
        Process p = new ProcessBuilder(JvmCommand.from(JvmCommand.base(), List.of(), LoopingChild.class.getName(),
                args)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(p.pid());
        return p.toHandle();
    }

    /** Waits until each of the first {@code n} members has said it waits for the block {@code name}. */
    private static void awaitWaitingForTheBlock(TestSupport.Capture out, String name, int n) {
        for (int i = 0; i < n; i++) {
            String line = "[" + i + "] waiting for control block " + name + "\n";
            assertTrue(waitUntil(30_000, () -> out.text().contains(line)), "no '" + line.strip() + "' in:\n"
                    + out.text());
        }
    }

    /**
     * The JVM's shutdown (SIGINT, SIGTERM) racing a start: every member the start began is ended, none starts after
     * (the hook iterated the members while they were added, and could miss one).
     */
    @Test
    void aShutdownDuringAStartEndsEveryMemberStartedAndStartsNoMore() throws Exception {
        for (int round = 0; round < 5; round++) {
            Supervisor sv = new Supervisor(8, Supervisor.Options.defaults());
            try {
                List<List<String>> commands = java.util.Collections.nCopies(8, List.of("sleep", "60"));
                java.util.concurrent.atomic.AtomicReference<Throwable> refused =
                        new java.util.concurrent.atomic.AtomicReference<>();
                Thread starter = Thread.ofPlatform().start(() -> {
                    try {
                        sv.start(commands);
                    } catch (CoordinationException e) {
                        refused.set(e);
                    }
                });
                sv.onShutdown(); // as the JVM's hook does, while the start may be under way
                starter.join();
                List<Long> pids = sv.pids();
                assertTrue(refused.get() != null || pids.size() == 8, "round " + round + ": " + pids);
                for (long pid : pids) {
                    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                            "round " + round + ": member pid " + pid + " still runs");
                }
                CoordinationException after = assertThrows(CoordinationException.class, () -> sv.start(commands));
                assertEquals("this JVM is shutting down: no process of the group starts", after.getMessage());
            } finally {
                sv.close();
            }
        }
    }
}
