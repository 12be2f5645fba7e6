package org.cudaipc4j.cli;

import static org.cudaipc4j.cli.ToolPathsTest.assertEmptyAndRemove;
import static org.cudaipc4j.cli.ToolPathsTest.assertNoStackTrace;
import static org.cudaipc4j.cli.ToolPathsTest.privateShm;
import static org.cudaipc4j.cli.ToolPathsTest.removeTree;
import static org.cudaipc4j.cli.ToolPathsTest.signal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.cudaipc4j.coord.Liveness;
import org.cudaipc4j.simpleipc.SimpleIpcChild;
import org.cudaipc4j.testing.Waits;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;

/**
 * A stopped process is a failed process, a stopped job is not: one process of a run stopped (SIGSTOP) while the
 * others run ends the run within 5 s, named on one line, and leaves nothing; the whole run stopped together for
 * longer than the silence limit, or than the run's --timeout, and continued goes on and passes. The tests of a
 * stopped process print the time they measured.
 */
class StoppedRunTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);
    /** From the SIGSTOP to the exit of the run's last process. */
    private static final Duration ENDS_WITHIN = Duration.ofSeconds(5);
    private static final String ENDLESS = "100000000";

    /** The run's processes: the parent and its children, as the process table shows them. */
    private static List<ProcessHandle> tree(Process tool) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(tool.toHandle()), tool.children()).toList();
    }

    /** The state letter of {@code pid} in /proc (T: stopped, Z: exited, not reaped), or "gone". */
    private static String state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException e) {
            return "gone";
        }
    }

    private static boolean ended(long pid) {
        String s = state(pid);
        return s.equals("gone") || s.equals("Z") || s.equals("X");
    }

    /** Child {@code index} of the run. */
    private static ProcessHandle child(Process tool, int index) {
        return tool.children().filter(c -> ToolRun.commandLine(c).contains(SimpleIpcChild.class.getName() + " "
                + index + " ")).findFirst().orElseThrow();
    }

    @Test
    void aStoppedChildEndsTheRunNamedWithinFiveSeconds() throws IOException {
        Path shm = privateShm();
        try {
            AtomicReference<List<ProcessHandle>> processes = new AtomicReference<>();
            AtomicLong stoppedAt = new AtomicLong();
            Process tool = ToolPathsTest.start(Map.of(), shm, "--backend", "host", "--sim-devices", "3", "--size",
                    "4K", "--steps", ENDLESS);
            ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals("Step 5 done"), p -> {
                processes.set(tree(p));
                long pid = child(p, 1).pid();
                signal("STOP", pid);
                stoppedAt.set(System.nanoTime());
            });
            long ms = (System.nanoTime() - stoppedAt.get()) / 1_000_000;
            System.out.println("stopped child: the run ended " + ms + " ms after the SIGSTOP");
            assertEquals(4, processes.get().size(), "the run's processes at the SIGSTOP: " + processes.get());
            assertTrue(processes.get().stream().allMatch(h -> ended(h.pid())), "a process of the run still runs");
            assertTrue(ms < ENDS_WITHIN.toMillis(), "the run ended " + ms + " ms after the SIGSTOP\n" + run.out);
            run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
            // The parent names it first, with how long it was silent.
            List<String> failed = run.out.lines().filter(l -> l.matches("Process \\d+ failed \\(.*")).toList();
            assertTrue(failed.getFirst().matches("Process 1 failed \\(stopped responding for [0-9.]+ s\\)"), run.out);
            assertSilentForTheLimit(failed.getFirst());
            assertNoStackTrace(run);
            assertEmptyAndRemove(shm, "after the stopped child");
        } finally {
            removeTree(shm);
        }
    }

    @Test
    void aStoppedParentIsNamedByAChildAndLeavesNothingWhenContinued() throws IOException {
        Path shm = privateShm();
        try {
            AtomicReference<List<ProcessHandle>> children = new AtomicReference<>();
            AtomicLong childrenGoneMs = new AtomicLong(-1);
            Process tool = ToolPathsTest.start(Map.of(), shm, "--backend", "host", "--sim-devices", "3", "--size",
                    "4K", "--steps", ENDLESS);
            ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals("Step 5 done"), p -> {
                children.set(p.children().toList());
                signal("STOP", p.pid());
                long stoppedAt = System.nanoTime();
                // Waited for on a thread of its own: the children's lines must go on being read meanwhile.
                Thread.ofPlatform().daemon().start(() -> {
                    boolean gone = Waits.until(30_000, () -> children.get().stream().allMatch(c -> ended(c.pid())));
                    childrenGoneMs.set(gone ? (System.nanoTime() - stoppedAt) / 1_000_000 : -1);
                    signal("CONT", p.pid());
                });
            });
            long ms = childrenGoneMs.get();
            System.out.println("stopped parent: its children ended " + ms + " ms after the SIGSTOP");
            assertEquals(3, children.get().size(), "children at the SIGSTOP: " + children.get());
            assertTrue(ms >= 0 && ms < ENDS_WITHIN.toMillis(), "the children ended " + ms + " ms after the SIGSTOP"
                    + " of their parent\n" + run.out);
            run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
            Pattern named = Pattern.compile("^Process \\d+: the parent \\(pid " + tool.pid() + "\\) stopped responding"
                    + " for [0-9.]+ s while process \\d+ waited .*$", Pattern.MULTILINE);
            List<String> lines = named.matcher(run.out).results().map(r -> r.group()).toList();
            assertEquals(1, lines.size(), "lines naming the stopped parent:\n" + run.out);
            assertSilentForTheLimit(lines.getFirst());
            assertNoStackTrace(run);
            assertEmptyAndRemove(shm, "after the stopped parent was continued");
        } finally {
            removeTree(shm);
        }
    }

    @Test
    void aRunStoppedWholeForLongerThanTheLimitGoesOnWhenContinuedAndPasses() throws IOException {
        // The pause under test: longer than the silence limit.
        stoppedWholeGoesOnAndPasses(Liveness.silenceLimit().plusSeconds(1), "--steps", "3000");
    }

    /**
     * Time the job spent stopped is not the run's: a run stopped whole for longer than its --timeout goes on when
     * continued and passes. (ToolPathsTest.aRunLongerThanItsTimeoutEndsAtTheTimeout: one that runs that long fails.)
     */
    @Test
    void aRunStoppedWholeForLongerThanItsTimeoutGoesOnWhenContinuedAndPasses() throws IOException {
        Duration timeout = Duration.ofSeconds(4);
        // The pause under test: longer than the whole --timeout.
        stoppedWholeGoesOnAndPasses(timeout.plusSeconds(1), "--steps", "200", "--timeout", timeout.toSeconds() + "s");
    }

    /**
     * A host-backend run of 3 processes (and {@code args}), stopped whole once its steps run for {@code pause}, by
     * the time it lasts, not by an event, then continued: it passes, nobody timed out or was found stopped, and
     * nothing is left.
     */
    private static void stoppedWholeGoesOnAndPasses(Duration pause, String... args) throws IOException {
        Path shm = privateShm();
        try {
            AtomicReference<List<String>> states = new AtomicReference<>();
            List<String> command = new java.util.ArrayList<>(List.of("--backend", "host", "--sim-devices", "3",
                    "--size", "4K"));
            command.addAll(List.of(args));
            Process tool = ToolPathsTest.start(Map.of(), shm, command.toArray(String[]::new));
            ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals("Step 5 done"), p -> {
                List<ProcessHandle> all = tree(p);
                // Every process at once, as Ctrl-Z stops a job (kill(1) signals them one after the other).
                signal("STOP", all.stream().mapToLong(ProcessHandle::pid).toArray());
                long stoppedAt = System.nanoTime();
                Waits.until(10_000, () -> all.stream().allMatch(h -> state(h.pid()).equals("T")));
                states.set(all.stream().map(h -> state(h.pid())).toList());
                long nanos = pause.toNanos();
                for (long left = nanos; left > 0; left = nanos - (System.nanoTime() - stoppedAt)) {
                    LockSupport.parkNanos(left);
                }
                signal("CONT", all.stream().mapToLong(ProcessHandle::pid).toArray());
            });
            assertEquals(List.of("T", "T", "T", "T"), states.get(), "the run was not stopped whole while it ran");
            run.assertExit(ExitCodes.OK).assertNothingLeft();
            String last = run.out.lines().reduce((a, b) -> b).orElse("");
            assertTrue(last.startsWith("Passed: 3 processes on 3 simulated devices"), run.out);
            assertEquals(0, run.count("timed out|stopped responding|failed"), run.out);
            assertEmptyAndRemove(shm, "after the run stopped for " + pause + " and continued");
        } finally {
            removeTree(shm);
        }
    }

    /** The line says the process was silent for the limit at least. */
    private static void assertSilentForTheLimit(String line) {
        var m = Pattern.compile("stopped responding for ([0-9.]+) s").matcher(line);
        assertTrue(m.find(), line);
        double limit = Liveness.silenceLimit().toMillis() / 1000.0;
        assertTrue(Double.parseDouble(m.group(1)) >= limit, "silent for less than the limit " + limit + ": " + line);
    }
}
