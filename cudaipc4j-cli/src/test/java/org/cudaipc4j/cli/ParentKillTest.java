package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.cudaipc4j.testing.Waits;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parent of a host-backend run ({@code --procs-per-device 4}, {@code --json}, so that its children's phase-log
 * folder exists too) killed by SIGKILL at each phase of its run ({@code cudaipc4j.tracePhases} says which it reached)
 * and at 20 moments spread evenly over its first second (every 50 ms). While a child of the run lives, the children
 * remove what the group still has under a name; once they are gone nothing of the run is left: no file in its
 * shared-memory folder or its temporary folder, no performance-data file of its JVMs, no process. Killed once its
 * children may all have ended, the parent leaves what had a name to the next run's sweep, which removes it; so does a
 * run whose processes were all killed at once.
 */
class ParentKillTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);
    /** How long the children may take to end after their parent (they look every 100 ms). */
    private static final Duration CHILDREN_GONE = Duration.ofSeconds(20);
    /** Steps enough that no run gets through them before it is killed. */
    private static final String ENDLESS = "100000000";

    @ParameterizedTest(name = "at {0}, --ipc {1}")
    @CsvSource({"childrenStarted, legacy", "childrenStarted, vmm", "blockCreated, legacy", "blockCreated, vmm",
        "assigned, legacy", "exported0, legacy", "exported1, legacy", "exported2, legacy", "exported3, legacy",
        "exported, vmm", "Step 5 done, legacy", "Step 5 done, vmm"})
    void killedAtAPhaseWhileItsChildrenRunLeavesNothing(String phase, String ipc) throws Exception {
        try (RunFolders folders = RunFolders.create()) {
            Killed killed = runAndKill(folders, ENDLESS, ipc, phase::equals, -1);
            assertTrue(killed.children().size() == 4, "children at the kill: " + killed);
            folders.assertNothingOf(killed);
        }
    }

    @ParameterizedTest(name = "{0} ms after its start")
    @ValueSource(ints = {0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800, 850, 900,
        950})
    void killedAtAMomentOfItsFirstSecondLeavesNothing(int millis) throws Exception {
        try (RunFolders folders = RunFolders.create()) {
            folders.assertNothingOf(runAndKill(folders, ENDLESS, "legacy", line -> false, millis));
        }
    }

    @ParameterizedTest(name = "at {0}")
    @ValueSource(strings = {"released", "childrenDone", "teardown"})
    void killedOnceItsChildrenMayHaveEndedLeavesTheRestToTheNextRunsSweep(String phase) throws Exception {
        try (RunFolders folders = RunFolders.create()) {
            Killed killed = runAndKill(folders, "2", "legacy", phase::equals, -1);
            // No child may be left to remove them: what the parent alone had named, if anything.
            for (String left : folders.left()) {
                assertTrue(left.contains("cudaipc4j-" + killed.parent() + "-"), "not the dead parent's: " + left);
            }
            ToolRun next = ToolRun.finish(ToolRun.start(folders.jvmOptions(false), "--backend", "host",
                    "--sim-devices", "1", "--size", "4K", "--steps", "1"), LIMIT, line -> false, p -> {});
            next.assertExit(ExitCodes.OK);
            folders.assertNothingOf(killed);
        }
    }

    @Test
    void everyProcessKilledAtOnceLeavesTheirNamesToTheNextRunsSweep() throws Exception {
        try (RunFolders folders = RunFolders.create()) {
            Killed killed = runAndKill(folders, ENDLESS, "vmm", "Step 5 done"::equals, -1, true);
            assertTrue(folders.left().size() >= 2, "what had a name, with nobody left to remove it: " + folders.left());
            ToolRun next = ToolRun.finish(ToolRun.start(folders.jvmOptions(false), "--backend", "host",
                    "--sim-devices", "1", "--size", "4K", "--steps", "1"), LIMIT, line -> false, p -> {});
            next.assertExit(ExitCodes.OK);
            folders.assertNothingOf(killed);
        }
    }

    /** The run's processes when its parent was killed: the parent, and every child seen by then. */
    private record Killed(long parent, Set<Long> children, String output) {}

    /**
     * Runs the tool in {@code folders} and kills its parent when it prints a phase {@code at} accepts (or a step
     * line), or {@code millis} after its start when that is not negative; waits for all of its processes to end.
     */
    private static Killed runAndKill(RunFolders folders, String steps, String ipc, Predicate<String> at, long millis)
            throws Exception {
        return runAndKill(folders, steps, ipc, at, millis, false);
    }

    /** As above; with {@code everyone}, the children are killed with the parent, stopped first so none cleans up. */
    private static Killed runAndKill(RunFolders folders, String steps, String ipc, Predicate<String> at, long millis,
            boolean everyone) throws Exception {
        Process tool = ToolRun.start(folders.jvmOptions(true), "--backend", "host", "--sim-devices", "1",
                "--procs-per-device", "4", "--size", "64K", "--steps", steps, "--ipc", ipc, "--json");
        Set<Long> children = new TreeSet<>();
        StringBuilder output = new StringBuilder();
        Thread.ofPlatform().daemon().start(() -> drain(tool)); // the JSON, which a killed run never writes
        if (millis >= 0) {
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    tool.waitFor(millis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                kill(tool, children, folders, false);
            });
        }
        boolean fired = false;
        try (BufferedReader lines = tool.errorReader(StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                output.append(line).append('\n');
                String phase = line.startsWith("cudaipc4j: phase ") ? line.substring("cudaipc4j: phase ".length())
                        : line;
                if (!fired && millis < 0 && at.test(phase)) {
                    fired = true;
                    kill(tool, children, folders, everyone);
                }
            }
        }
        assertTrue(tool.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS), "the parent did not end: " + output);
        assertTrue(millis >= 0 || fired, "the phase never came; output:\n" + output);
        assertEquals(137, tool.exitValue(), "the parent ended by SIGKILL; output:\n" + output);
        awaitGone(folders, children, output);
        return new Killed(tool.pid(), Set.copyOf(children), output.toString());
    }

    /** SIGKILL to the parent, after noting its children; with {@code everyone}, to them too. */
    private static void kill(Process tool, Set<Long> children, RunFolders folders, boolean everyone) {
        synchronized (children) {
            tool.children().forEach(c -> children.add(c.pid()));
            children.addAll(folders.processes());
            children.remove(tool.pid());
            if (everyone) {
                children.forEach(pid -> signal("STOP", pid));
            }
        }
        tool.toHandle().destroyForcibly(); // SIGKILL; Process.destroyForcibly would also close its pipes here
        if (everyone) {
            children.forEach(pid -> signal("KILL", pid));
        }
    }

    /** Sends {@code signal} (a name such as STOP) to {@code pid} with kill(1). */
    private static void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).start();
            assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -s " + signal + " " + pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits until no process of the run is left, noting any that the snapshot at the kill missed. */
    private static void awaitGone(RunFolders folders, Set<Long> children, StringBuilder output) {
        boolean gone = Waits.until(CHILDREN_GONE.toMillis(), () -> {
            List<Long> running = folders.processes();
            synchronized (children) {
                children.addAll(running); // the parent is gone: its children alone
            }
            return running.isEmpty();
        });
        if (!gone) {
            folders.processes().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
        assertTrue(gone, "processes of the run still there " + CHILDREN_GONE + " after the kill; output:\n" + output);
    }

    private static void drain(Process tool) {
        try (var out = tool.getInputStream()) {
            out.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            // the run ended
        }
    }

    /** A run's own shared-memory and temporary folders, where no other run's clean-up reaches. */
    private record RunFolders(Path shm, Path tmp) implements AutoCloseable {
        static RunFolders create() throws IOException {
            return new RunFolders(Files.createTempDirectory(Path.of("/dev/shm"), "parentkilltest-"),
                    Files.createTempDirectory("parentkilltest-tmp-"));
        }

        /** The folders as the tool's JVM options, which its children inherit; with the phases traced or not. */
        List<String> jvmOptions(boolean traced) {
            List<String> options = new ArrayList<>(List.of("-Dcudaipc4j.shm.dir=" + shm,
                    "-Djava.io.tmpdir=" + tmp));
            if (traced) {
                options.add("-Dcudaipc4j.tracePhases=true");
            }
            return options;
        }

        /** The pids of the running processes of runs in these folders (their command lines name them). */
        List<Long> processes() {
            return ToolRun.processesMentioning("-Dcudaipc4j.shm.dir=" + shm).stream()
                    .map(p -> Long.parseLong(p.substring(0, p.indexOf(' ')))).toList();
        }

        /** What is in the folders, by path. */
        List<String> left() throws IOException {
            List<String> left = new ArrayList<>();
            for (Path dir : List.of(shm, tmp)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.filter(f -> !f.equals(dir)).map(Path::toString).sorted().forEach(left::add);
                }
            }
            return left;
        }

        /** Nothing in the folders, and no performance-data file of the killed run's JVMs. */
        void assertNothingOf(Killed killed) throws IOException {
            assertEquals(List.of(), left(), "left after the kill; output:\n" + killed.output());
            List<Path> perfData = new ArrayList<>();
            Stream.concat(Stream.of(killed.parent()), killed.children().stream())
                    .map(pid -> Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"), Long.toString(pid)))
                    .filter(Files::exists).forEach(perfData::add);
            assertEquals(List.of(), perfData, "performance-data files of the run's JVMs");
        }

        @Override
        public void close() throws IOException {
            for (Path dir : List.of(shm, tmp)) {
                try (Stream<Path> all = Files.walk(dir)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                } catch (UncheckedIOException | IOException e) {
                    // gone already
                }
            }
        }
    }
}
