package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Helpers shared by the coordination tests: shm leak checks, process liveness, child JVMs. */
final class TestSupport {
    private TestSupport() {}

    /** Segment files in the shm directory created by any of {@code pids}. */
    static List<Path> segmentsOf(long... pids) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(SharedSegment.directory(), SharedSegment.PREFIX + "*")) {
            for (Path f : files) {
                for (long pid : pids) {
                    if (f.getFileName().toString().startsWith(SharedSegment.PREFIX + pid + "-")) {
                        found.add(f);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return found;
    }

    /** Fails when a segment created by any of {@code pids} is still in the shm directory. */
    static void assertNoSegmentsOf(long... pids) {
        assertEquals(List.of(), segmentsOf(pids), "segments left in " + SharedSegment.directory());
    }

    static void assertNoSegmentsOfThisJvm() {
        assertNoSegmentsOf(ProcessHandle.current().pid());
    }

    /** True while the process runs (a zombie does not count). */
    static boolean running(long pid) {
        return Pids.isAlive(pid);
    }

    /** Polls {@code condition} every 10 ms for up to {@code millis}; returns whether it became true. */
    static boolean waitUntil(long millis, BooleanSupplier condition) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }

    /** Starts a JVM running {@code mainClass} with this JVM's class path; stderr merged into stdout. */
    static Process startJvm(Class<?> mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(Supervisor.baseCommand());
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Reads lines from {@code p} until one starts with {@code prefix}; fails at EOF (showing what it read). */
    static String readLineStartingWith(BufferedReader r, String prefix, StringBuilder transcript) throws IOException {
        String line;
        while ((line = r.readLine()) != null) {
            transcript.append(line).append('\n');
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        fail("process output ended before '" + prefix + "':\n" + transcript);
        return null;
    }

    static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    /** A PrintStream that captures what children print, for assertions. */
    static final class Capture {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            synchronized (stream) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }
    }

    /** Kills a process if it still runs (test cleanup). */
    static void killIfRunning(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
}
