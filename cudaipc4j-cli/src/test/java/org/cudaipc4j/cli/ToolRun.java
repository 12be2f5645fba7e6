package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.cudaipc4j.cuda.ipc.DriverFiles;
import org.cudaipc4j.testing.Waits;

/**
 * Runs the tool as a real process (a fresh JVM on this test's class path), the way a user does, and checks what
 * it leaves behind: no shared-memory segment of its run, no process of its run.
 */
public final class ToolRun {
    private static final Pattern SEGMENT = Pattern.compile("PP: lshmName = (\\S+)");

    public final int exitCode;
    public final String out;
    public final String err;
    public final long pid;
    /** The CUDA driver's files in /dev/shm when the run began (see {@link #assertNothingLeft}). */
    private final Set<String> driverFilesBefore;

    private ToolRun(int exitCode, String out, String err, long pid, Set<String> driverFilesBefore) {
        this.exitCode = exitCode;
        this.out = out;
        this.err = err;
        this.pid = pid;
        this.driverFilesBefore = driverFilesBefore;
    }

    /**
     * The JVM options the launcher ({@code ./cudaipc4j}) gives the tool besides native access and its AOT cache
     * (LauncherTest checks that it still does): the tests run the tool's JVM as users do, the JVM's own lines on
     * standard error, where they cannot break a check of standard output.
     */
    static final List<String> LAUNCHER_JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-Xlog:disable",
            "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr", "-XX:-UsePerfData");

    public static Process start(String... args) {
        return start(List.of(), args);
    }

    /** The tool's JVM with {@code jvmOptions} after the launcher's, running {@code args}. */
    static Process start(List<String> jvmOptions, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(LAUNCHER_JVM_OPTIONS);
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(org.cudaipc4j.testing.JavaProcess.classPath());
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        try {
            return new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the tool to completion (bounded by {@code limit}). */
    public static ToolRun run(Duration limit, String... args) {
        return finish(start(args), limit, line -> false, p -> {});
    }

    /**
     * Runs the tool and calls {@code onLine} with the process when a stdout line matches {@code trigger} (once).
     */
    public static ToolRun finish(Process p, Duration limit, Predicate<String> trigger,
            java.util.function.Consumer<Process> onLine) {
        // Before the run's processes start their drivers (a fresh JVM takes far longer than this to get there).
        Set<String> driverFilesBefore = Set.copyOf(shmFiles("cuda.shm."));
        // Own threads, not the common pool: with 2 CPUs it has one worker, and a reader queued behind the other
        // would leave a pipe full and the tool blocked.
        CompletableFuture<String> err = readAsync(() -> readAll(p.getErrorStream()));
        CompletableFuture<String> out = readAsync(() -> {
            StringBuilder sb = new StringBuilder();
            boolean fired = false;
            try (var reader = p.inputReader(StandardCharsets.UTF_8)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    sb.append(line).append('\n');
                    if (!fired && trigger.test(line)) {
                        fired = true;
                        onLine.accept(p);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return sb.toString();
        });
        try {
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                fail("tool did not finish within " + limit + "; output so far:\n" + out.getNow(""));
            }
            return new ToolRun(p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS), p.pid(),
                    driverFilesBefore);
        } catch (Exception e) {
            throw new AssertionError("running the tool failed", e);
        }
    }

    private static CompletableFuture<String> readAsync(java.util.function.Supplier<String> reader) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                result.complete(reader.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String segmentName() {
        Matcher m = SEGMENT.matcher(out + err);
        return m.find() ? m.group(1) : null;
    }

    /** Asserts the exit code, showing the whole output when it differs. */
    public ToolRun assertExit(int expected) {
        assertEquals(expected, exitCode, () -> "exit code; output:\n" + out + "\nstderr:\n" + err);
        return this;
    }

    /**
     * Asserts that nothing of this run is left: no /dev/shm file named after its pid, no CUDA driver file
     * ({@code cuda.shm.*}) of a process that has ended and that was not there before the run, no process of its run.
     */
    public ToolRun assertNothingLeft() {
        String prefix = "cudaipc4j-" + pid + "-";
        // Children exit on their own within a bounded time when the parent is gone; wait up to 3 s for that.
        Waits.until(3000, () -> shmFiles(prefix).isEmpty() && driverFilesLeft().isEmpty()
                && processesMentioning(prefix).isEmpty());
        List<String> leftovers = shmFiles(prefix);
        List<String> driverFiles = driverFilesLeft();
        // Children carry the block's name on their command line; the prefix also finds those of a block never
        // announced (children started before a usage error was found).
        List<String> processes = processesMentioning(prefix);
        assertTrue(leftovers.isEmpty(), "segments left in /dev/shm: " + leftovers);
        assertTrue(driverFiles.isEmpty(), "driver files of ended processes left in /dev/shm: " + driverFiles);
        assertTrue(processes.isEmpty(), "processes left: " + processes);
        return this;
    }

    /** Driver files of ended processes that were not there before the run. */
    private List<String> driverFilesLeft() {
        return shmFiles("cuda.shm.").stream().filter(f -> !driverFilesBefore.contains(f) && !producerAlive(f)).toList();
    }

    /** Whether the process a driver file is named after ({@code cuda.shm.<n>.<pid in hex>.<m>}) is running. */
    static boolean producerAlive(String driverFile) {
        long producer = DriverFiles.producer(driverFile);
        return producer > 0 && ProcessHandle.of(producer).isPresent();
    }

    static List<String> shmFiles(String prefix) {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(prefix)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> processesMentioning(String text) {
        if (text == null) {
            return List.of();
        }
        return ProcessHandle.allProcesses()
                .filter(ph -> commandLine(ph).contains(text))
                .map(ph -> ph.pid() + " " + commandLine(ph))
                .toList();
    }

    /**
     * The full command line of a process, read from /proc (ProcessHandle.Info truncates long ones, and a test
     * class path is long).
     */
    public static String commandLine(ProcessHandle process) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return ""; // gone, or not ours to read
        }
    }

    public long count(String regex) {
        return Pattern.compile(regex, Pattern.MULTILINE).matcher(out).results().count();
    }
}
