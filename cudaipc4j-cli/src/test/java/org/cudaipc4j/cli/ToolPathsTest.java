package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.simpleipc.SimpleIpcChild;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The tool's paths that a good run does not take, run as a user runs them: --version, a failure in one line (and
 * its stack trace on request), --timeout running out, and the end of the parent by a signal.
 */
class ToolPathsTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);
    /** How long children may take to end and clean up after their parent is gone (they check every 100 ms). */
    private static final Duration CHILDREN_GONE = Duration.ofSeconds(15);
    /** Steps enough that no run finishes them before it is stopped or timed out. */
    private static final String ENDLESS = "100000000";

    /** The tool as a process with {@code env} added to its environment. */
    private static Process start(Map<String, String> env, String... args) {
        return start(env, null, args);
    }

    /**
     * The tool as a process with {@code env} added to its environment, and its shared-memory files (and its
     * children's) in {@code shmDir} when not null: a folder of its own, where no other process's clean-up of dead
     * runs' files can remove them before this test looks.
     */
    static Process start(Map<String, String> env, Path shmDir, String... args) {
        List<String> cmd = new ArrayList<>();
        // SIGINT's default action, which a test JVM started as a background job inherits ignored and would pass on
        // (a JVM that starts with SIGINT ignored keeps ignoring it); env execs, so the pid stays the tool's.
        cmd.addAll(List.of("env", "--default-signal=INT"));
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        if (shmDir != null) {
            cmd.add("-Dcudaipc4j.shm.dir=" + shmDir);
        }
        cmd.add("-cp");
        cmd.add(org.cudaipc4j.testing.JavaProcess.classPath());
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ToolRun run(Map<String, String> env, String... args) {
        return ToolRun.finish(start(env, args), LIMIT, line -> false, p -> {});
    }

    /** A new folder in /dev/shm (a tmpfs, as the default), for {@link #start(Map, Path, String...)}. */
    static Path privateShm() throws IOException {
        return Files.createTempDirectory(Path.of("/dev/shm"), "toolpathstest-");
    }

    /** Asserts that {@code dir} is empty, then removes it. */
    static void assertEmptyAndRemove(Path dir, String when) throws IOException {
        try (var files = Files.list(dir)) {
            List<String> left = files.map(f -> f.getFileName().toString()).sorted().toList();
            assertEquals(List.of(), left, "left in " + dir + " " + when);
        } finally {
            removeTree(dir);
        }
    }

    static void removeTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Sends {@code signal} (a name such as STOP) to each of {@code pids} with one kill(1). */
    static void signal(String signal, long... pids) {
        try {
            List<String> command = new ArrayList<>(List.of("kill", "-s", signal));
            for (long pid : pids) {
                command.add(Long.toString(pid));
            }
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            String said = new String(kill.getInputStream().readAllBytes());
            assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, String.join(" ", command) + ": "
                    + said);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static void assertNoStackTrace(ToolRun run) {
        assertFalse(run.err.contains("Exception") || run.err.contains("\tat ") || run.out.contains("\tat "),
                run.out + run.err);
    }

    /** The project's version, from the module's POM (its parent's). */
    private static String projectVersion() throws IOException {
        Matcher m = Pattern.compile("(?s)<parent>.*?<version>([^<]+)</version>").matcher(Files.readString(
                Path.of("pom.xml")));
        assertTrue(m.find(), "no parent version in pom.xml");
        return m.group(1).strip();
    }

    @Test
    void versionPrintsTheArtifactsVersion() throws IOException {
        String expected = "cudaipc4j " + projectVersion();
        for (String option : new String[] {"--version", "-V"}) {
            ToolRun run = ToolRun.run(LIMIT, option);
            run.assertExit(ExitCodes.OK);
            assertEquals(expected, run.out.strip(), option);
            assertEquals("", run.err, option);
        }
    }

    /** Output that cannot be written (a full disk) is no success: exit 1 and one line on standard error. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"--version", "--backend host --size 4K"})
    void outputThatCannotBeWrittenIsAFailure(String args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", org.cudaipc4j.testing.JavaProcess.classPath(),
                Main.class.getName()));
        cmd.addAll(List.of(args.split(" ")));
        Process p = new ProcessBuilder(cmd).redirectOutput(new java.io.File("/dev/full")).start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(ExitCodes.FAILURE, p.exitValue(), err);
        assertEquals("cudaipc4j: cannot write to standard output", err.lines().reduce((a, b) -> b).orElse(""), err);
    }

    /**
     * Output to a pipe whose reader is gone ({@code cudaipc4j ... | head -1}) ends the tool silently with 141, as
     * SIGPIPE ends a Unix tool. The pipe is a FIFO whose only reader this test closes once the tool holds the write
     * end (the JDK opens a redirect's file before {@code start} returns), so the tool's first write finds it closed.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"--version", "--backend host --size 4K",
            "interop describe --help"})
    void outputToAClosedPipeEndsSilently(String args, @TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("out");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertTrue(mkfifo.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        // Opening a FIFO's read end waits for a writer, and the tool's start opens the write end: both at once.
        java.util.concurrent.CompletableFuture<java.io.InputStream> reader = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> {
                    try {
                        return Files.newInputStream(fifo);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", org.cudaipc4j.testing.JavaProcess.classPath(),
                Main.class.getName()));
        cmd.addAll(List.of(args.split(" ")));
        Process p = new ProcessBuilder(cmd).redirectOutput(fifo.toFile()).start();
        reader.get(LIMIT.toSeconds(), TimeUnit.SECONDS).close();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(ExitCodes.CLOSED_PIPE, p.exitValue(), err);
        assertEquals("", err);
    }

    /**
     * A run given the pid of a bench that is gone ({@code CUDAIPC4J_BENCH_PID}: no longer its parent) stops at once
     * and leaves nothing; one whose bench lives (here this test, its parent) runs to its end; a value that is not
     * the pid of another process is one line, exit 64.
     */
    @Test
    void aRunWhoseBenchIsGoneStops() {
        long gone = (1L << 22) + 1; // above the kernel's largest pid: no process has it
        ToolRun stopped = run(Map.of("CUDAIPC4J_BENCH_PID", Long.toString(gone)), "--backend", "host", "--size", "4K",
                "--steps", "100000000");
        stopped.assertExit(ExitCodes.FAILURE).assertNothingLeft();
        assertTrue(stopped.err.contains("cudaipc4j: stopped: the bench that started this run (pid " + gone
                + ") is gone"), stopped.err);

        ToolRun watched = run(Map.of("CUDAIPC4J_BENCH_PID", Long.toString(ProcessHandle.current().pid())),
                "--backend", "host", "--size", "4K");
        watched.assertExit(ExitCodes.OK).assertNothingLeft();

        for (String bad : List.of("bench", "1", "0", "-5")) {
            ToolRun refused = run(Map.of("CUDAIPC4J_BENCH_PID", bad), "--backend", "host", "--size", "4K");
            refused.assertExit(ExitCodes.USAGE);
            assertEquals("cudaipc4j: CUDAIPC4J_BENCH_PID=" + bad + " is not the pid of the process that started this"
                    + " one\n", refused.err);
        }
    }

    /** Every command's help lists -V: each prints the version, as the root command does. */
    @Test
    void everyCommandPrintsTheVersion() throws IOException {
        String expected = "cudaipc4j " + projectVersion() + "\n";
        for (String command : List.of("devices", "bench", "bench chart", "bench interop", "interop",
                "interop describe", "interop open")) {
            java.io.StringWriter out = new java.io.StringWriter();
            picocli.CommandLine cl = Main.commandLine();
            picocli.CommandLine target = cl;
            target.setOut(new java.io.PrintWriter(out, true));
            for (String word : command.split(" ")) {
                target = target.getSubcommands().get(word);
                target.setOut(new java.io.PrintWriter(out, true));
            }
            List<String> args = new ArrayList<>(List.of(command.split(" ")));
            args.add("-V");
            assertEquals(ExitCodes.OK, cl.execute(args.toArray(String[]::new)), command);
            assertEquals(expected, out.toString(), command);
        }
    }

    /**
     * A run that fails after its processes passed: the report file the environment names cannot be written (it is a
     * folder). The quick path (options only) and picocli's (an argument file) both say so in one line.
     */
    @Test
    void aFailureIsOneLineWithItsReasonAndNoStackTrace(@TempDir Path tmp) throws IOException {
        Path folder = Files.createDirectory(tmp.resolve("report"));
        Path argFile = Files.writeString(tmp.resolve("args"), "--backend host --size 4K\n");
        String expected = "cudaipc4j: cannot write the run report to " + folder + ": " + folder + ": Is a directory";
        Map<String, String> env = Map.of("CUDAIPC4J_REPORT", folder.toString());
        for (String[] args : List.of(new String[] {"--backend", "host", "--size", "4K"},
                new String[] {"@" + argFile})) {
            ToolRun run = run(env, args);
            run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
            assertEquals(expected, run.err.strip(), String.join(" ", args));
            assertNoStackTrace(run);
            assertTrue(run.out.lines().anyMatch(l -> l.startsWith("Passed: ")), run.out);
        }
    }

    @Test
    void debugAddsTheStackTraceAfterTheLine(@TempDir Path tmp) throws IOException {
        Path folder = Files.createDirectory(tmp.resolve("report"));
        ToolRun run = run(Map.of("CUDAIPC4J_REPORT", folder.toString(), "CUDAIPC4J_DEBUG", "1"), "--backend", "host",
                "--size", "4K");
        run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
        List<String> lines = run.err.lines().toList();
        assertEquals("cudaipc4j: cannot write the run report to " + folder + ": " + folder + ": Is a directory",
                lines.getFirst());
        assertEquals("java.io.UncheckedIOException: cannot write the run report to " + folder, lines.get(1));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("\tat org.cudaipc4j.simpleipc.SimpleIpcParent.run(")),
                run.err);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("Caused by: java.nio.file.FileSystemException: " + folder
                + ": Is a directory")), run.err);
    }

    /** A run far longer than its --timeout ends when the timeout runs out, says so, and leaves nothing. */
    @Test
    void aRunLongerThanItsTimeoutEndsAtTheTimeout() throws IOException {
        Path shm = privateShm();
        try {
            long started = System.nanoTime();
            ToolRun run = ToolRun.finish(start(Map.of(), shm, "--backend", "host", "--size", "4K", "--steps", ENDLESS,
                    "--timeout", "3s"), LIMIT, line -> false, p -> {});
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
            assertTimedOut(run, took);
            assertEmptyAndRemove(shm, "after the timeout");
        } finally {
            removeTree(shm);
        }
    }

    /**
     * A process that hangs (stopped by SIGSTOP once the steps run) holds its siblings at their barrier: with a silence
     * limit longer than the run's --timeout (StoppedRunTest has the default), the run ends at the timeout all the
     * same, the hung process killed.
     */
    @Test
    void aHungProcessEndsTheRunAtTheTimeout() throws IOException {
        Path shm = privateShm();
        try {
            long started = System.nanoTime();
            AtomicReference<ProcessHandle> stopped = new AtomicReference<>();
            Process tool = start(Map.of("CUDAIPC4J_HEARTBEAT_TIMEOUT", "60"), shm, "--backend", "host",
                    "--sim-devices", "3", "--size", "4K", "--steps", ENDLESS, "--timeout", "3s");
            ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals("Step 5 done"), p -> {
                ProcessHandle child = p.children()
                        .filter(c -> ToolRun.commandLine(c).contains(SimpleIpcChild.class.getName() + " 1 "))
                        .findFirst().orElseThrow();
                stopped.set(child);
                signal("STOP", child.pid());
            });
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertTrue(stopped.get() != null, "process 1 was never stopped:\n" + run.out);
            run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
            assertFalse(stopped.get().isAlive(), "the stopped process still exists");
            assertTimedOut(run, took);
            assertTrue(run.out.contains("Process 1 failed (timed out after 3 s (--timeout) waiting for it to finish"
                    + " (its status was RUNNING))"), run.out);
            assertEmptyAndRemove(shm, "after the timeout");
        } finally {
            removeTree(shm);
        }
    }

    /**
     * Failed at the timeout: the output names it, the last line says the run failed for it, no stack trace, and it
     * took the timeout but not much longer (the slack covers the JVMs' start and the reaping on a loaded machine).
     */
    private static void assertTimedOut(ToolRun run, Duration took) {
        assertTrue(run.out.contains("timed out after 3 s (--timeout)"), run.out);
        String last = run.out.lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.startsWith("Failed: the run timed out after 3 s (--timeout) waiting for its processes: "),
                "the last line names the timeout as the cause: " + last);
        assertNoStackTrace(run);
        assertEquals("", run.err.strip(), run.err);
        assertTrue(took.compareTo(Duration.ofSeconds(3)) >= 0, "ended before its timeout: " + took);
        assertTrue(took.compareTo(Duration.ofSeconds(3 + 30)) < 0, "ended long after its timeout: " + took);
    }

    /**
     * The parent is signalled once the steps run: with SIGTERM or SIGINT it ends its children and removes its
     * files itself; SIGKILLed it can do nothing, and its children, which watch it, end and remove what it left.
     * Either way every child ends and nothing of the run is left in /dev/shm (its control block, the simulated
     * devices' memory and events).
     */
    @ParameterizedTest(name = "SIG{0}, --ipc {1}")
    @CsvSource({"TERM, legacy", "TERM, vmm", "INT, legacy", "INT, vmm", "KILL, legacy", "KILL, vmm"})
    void aSignalledParentLeavesNothing(String signal, String ipc) throws Exception {
        Path shm = privateShm();
        try {
            signalParent(signal, ipc, shm);
        } finally {
            removeTree(shm);
        }
    }

    /**
     * A run with --json (its children's phase logs in a temporary folder) ended by a signal removes that folder.
     * With --json the run's lines go to standard error, where the test waits for its steps.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"INT", "TERM"})
    void aJsonRunEndedByASignalRemovesItsPhaseLogs(String signal) throws Exception {
        Path shm = privateShm();
        Path tmp = Files.createTempDirectory("toolpathstest-tmp-");
        Process tool = start(Map.of("JDK_JAVA_OPTIONS", "-Djava.io.tmpdir=" + tmp), shm, "--backend", "host",
                "--size", "4K", "--steps", ENDLESS, "--json");
        try {
            Thread.ofPlatform().daemon().start(() -> { // the JSON, at the end
                try (var out = tool.getInputStream()) {
                    out.transferTo(java.io.OutputStream.nullOutputStream());
                } catch (IOException e) {
                    // the run ended
                }
            });
            List<String> atSignal = null;
            try (var lines = tool.errorReader(java.nio.charset.StandardCharsets.UTF_8)) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (atSignal == null && line.equals("Step 5 done")) {
                        atSignal = files(tmp, "cudaipc4j-");
                        signal(signal, tool.pid());
                    }
                }
            }
            assertTrue(tool.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS), "the run did not end");
            assertEquals(1, atSignal == null ? 0 : atSignal.size(), "the phase-log folder at the signal: " + atSignal);
            assertEquals(signal.equals("INT") ? 130 : 143, tool.exitValue());
            assertEmptyAndRemove(tmp, "after SIG" + signal);
            assertEmptyAndRemove(shm, "after SIG" + signal);
        } finally {
            tool.descendants().forEach(ProcessHandle::destroyForcibly);
            tool.destroyForcibly();
            removeTree(tmp);
            removeTree(shm);
        }
    }

    private static void signalParent(String signal, String ipc, Path shm) throws Exception {
        AtomicReference<List<ProcessHandle>> children = new AtomicReference<>();
        AtomicReference<List<String>> filesAtSignal = new AtomicReference<>();
        Process tool = start(Map.of(), shm, "--backend", "host", "--sim-devices", "3", "--size", "64K", "--steps",
                ENDLESS, "--ipc", ipc);
        String prefix = "cudaipc4j-" + tool.pid() + "-";
        ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals("Step 5 done"), p -> {
            children.set(p.children().toList());
            filesAtSignal.set(files(shm, prefix));
            signal(signal, p.pid());
        });
        assertEquals(3, children.get().size(), "children when the signal was sent: " + children.get());
        // What there was to clean up: the block and each device's memory (events alone with --ipc vmm, whose
        // memory has no name). The socket folder of --ipc vmm went once every child was served, before the steps
        // (ParentKillTest signals runs earlier, with the folder there).
        assertTrue(filesAtSignal.get().size() >= 2, "the run's files at the signal: " + filesAtSignal.get());
        if (ipc.equals("vmm")) {
            assertFalse(filesAtSignal.get().stream().anyMatch(f -> f.endsWith(".fds")), filesAtSignal.get().toString());
        }
        int number = switch (signal) {
            case "INT" -> 2;
            case "KILL" -> 9;
            default -> 15;
        };
        assertEquals(128 + number, run.exitCode, "the parent ended by SIG" + signal + "; output:\n" + run.out
                + run.err);
        long deadline = System.nanoTime() + CHILDREN_GONE.toNanos();
        for (ProcessHandle child : children.get()) {
            try {
                child.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                children.get().forEach(ProcessHandle::destroyForcibly);
                fail("child " + child.pid() + " still runs " + CHILDREN_GONE + " after SIG" + signal
                        + " to its parent");
            }
        }
        if (signal.equals("KILL")) {
            assertTrue(run.err.contains("the parent (pid " + tool.pid() + ") is gone; exiting"), run.err);
        }
        // The parent removes its files before it exits; a child that finds it killed removes them before it halts.
        assertEmptyAndRemove(shm, "after SIG" + signal + " to the parent");
        run.assertNothingLeft();
    }

    private static List<String> files(Path dir, String prefix) {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
