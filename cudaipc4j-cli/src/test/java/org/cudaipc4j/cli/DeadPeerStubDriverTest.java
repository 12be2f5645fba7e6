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
import java.util.stream.Stream;
import org.cudaipc4j.simpleipc.SimpleIpcChild;
import org.cudaipc4j.testing.StubLibraries;
import org.cudaipc4j.testing.Waits;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A child killed while its siblings' devices wait for records nobody will make: the CUDA backend on the stub driver
 * built with {@code -DSTUB_RECORDS_NEVER_RUN}, where every interprocess event (the parent's, and those the children
 * open) never completes, nor does a stream that waits on one, as after a sibling's death on a GPU. The group must
 * still end promptly after the SIGKILL, with both {@code --sync} modes, named on a line, leaving nothing: no wait of
 * a child or of the parent may be one that only the dead process's work could end (the parent used to wait 2 s for
 * each of its events, a child to synchronize with its stream until the parent's SIGTERM).
 */
class DeadPeerStubDriverTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);
    /**
     * From the SIGKILL to the exit of the run's last process: 1 s is the aim on a GPU machine; here the JVMs share a
     * loaded CI machine's cores (0.26-0.51 s seen on 2 cores), and the waits this test guards against took 2 s for
     * each of the parent's events, or the grace period and more for a child.
     */
    private static final Duration ENDS_WITHIN = Duration.ofSeconds(2);

    @TempDir
    static Path stub;

    @BeforeAll
    static void buildStub() throws Exception {
        StubLibraries.build(StubLibraries.CUDA_DRIVER, stub.resolve("libcuda.so.1"), "-DSTUB_RECORDS_NEVER_RUN");
    }

    /**
     * {@code moment} rotation: 3 processes with more steps than the run-ahead lets a process enqueue, so each waits
     * for its device to catch up when the kill comes; verification: fewer steps than that, so each has passed its
     * last barrier and waits for the last writes to its own buffer.
     */
    @ParameterizedTest(name = "--sync {0}, killed in the {1}")
    @CsvSource({"events, rotation, 100000", "events, verification, 4", "counters, rotation, 100000"})
    void aKilledChildEndsTheGroupPromptlyAndLeavesNothing(String sync, String moment, String rounds) throws IOException {
        Path shm = privateShm();
        try {
            AtomicReference<List<ProcessHandle>> processes = new AtomicReference<>();
            AtomicLong killedAt = new AtomicLong();
            Process tool = ToolPathsTest.start(Map.of("LD_LIBRARY_PATH", stub.toString()), shm, "--backend", "cuda",
                    "--procs-per-device", "3", "--size", "4K", "--sync", sync, "--steps", rounds, "--timeout", "60s");
            // Process 0 writes its step lines when it enqueues its next marker or ends its steps: by then every
            // process has enqueued the steps before, and waits on the device (the stub never runs their records).
            String trigger = moment.equals("rotation") ? "Step 15 done" : "Step 11 done";
            ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals(trigger), p -> {
                processes.set(Stream.concat(Stream.of(p.toHandle()), p.children()).toList());
                // Every child at its wait on the device, no longer enqueueing steps (a settle, not a proof).
                LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
                long pid = child(p, 1).pid();
                signal("KILL", pid);
                killedAt.set(System.nanoTime());
            });
            Waits.until(LIMIT.toMillis(), () -> processes.get().stream().allMatch(h -> ended(h.pid())));
            long ms = (System.nanoTime() - killedAt.get()) / 1_000_000;
            System.out.println("--sync " + sync + ", child killed in the " + moment + ": the group ended " + ms
                    + " ms after the SIGKILL");
            assertEquals(4, processes.get().size(), "the run's processes at the kill: " + processes.get());
            run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
            assertTrue(ms < ENDS_WITHIN.toMillis(), "the group ended " + ms + " ms after the SIGKILL\n" + run.out);
            assertTrue(run.out.lines().anyMatch(l -> l.equals("Process 1 failed (killed by signal 9 (SIGKILL))")),
                    run.out);
            assertTrue(run.out.lines().anyMatch(l -> l.startsWith("Failed: ")), run.out);
            assertNoStackTrace(run);
            assertEmptyAndRemove(shm, "after the kill");
        } finally {
            removeTree(shm);
        }
    }

    /** Child {@code index} of the run. */
    private static ProcessHandle child(Process tool, int index) {
        return tool.children().filter(c -> ToolRun.commandLine(c).contains(SimpleIpcChild.class.getName() + " "
                + index + " ")).findFirst().orElseThrow();
    }

    /** Ended: gone from /proc, or exited and not yet reaped. */
    private static boolean ended(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state == 'Z' || state == 'X';
        } catch (IOException e) {
            return true;
        }
    }
}
