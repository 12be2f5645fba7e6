package org.cudaipc4j.coord;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.cudaipc4j.testing.ShmLeaks;
import org.cudaipc4j.testing.Waits;

/** Helpers shared by the coordination tests: shm leak checks, process liveness, child JVMs. */
final class TestSupport {
    /** The tests' slot data: a round counter and some bytes. */
    static final StructLayout SLOT = MemoryLayout.structLayout(JAVA_LONG.withName("round"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("blob")).withName("TestSlot");
    private static final VarHandle ROUND = SLOT.varHandle(MemoryLayout.PathElement.groupElement("round"));

    private TestSupport() {}

    static void setRound(ControlBlock block, int process, long round) {
        ROUND.setRelease(block.slotData(process), 0L, round);
    }

    static long round(ControlBlock block, int process) {
        return (long) ROUND.getAcquire(block.slotData(process), 0L);
    }

    /** Segment files in the shm directory created by any of {@code pids}. */
    static List<Path> segmentsOf(long... pids) {
        return ShmLeaks.segmentsOf(pids);
    }

    /** Fails when a segment created by any of {@code pids} is still in the shm directory. */
    static void assertNoSegmentsOf(long... pids) {
        ShmLeaks.assertNoneOf(pids);
    }

    static void assertNoSegmentsOfThisJvm() {
        ShmLeaks.assertNoneOfThisJvm();
    }

    /** True while the process runs (a zombie does not count). */
    static boolean running(long pid) {
        return Pids.isAlive(pid);
    }

    /** Polls {@code condition} every 10 ms for up to {@code millis}; returns whether it became true. */
    static boolean waitUntil(long millis, BooleanSupplier condition) {
        return Waits.until(millis, condition);
    }

    /**
     * Starts a JVM running {@code mainClass} with this JVM's class path; stderr merged into stdout. SIGINT's default
     * action is restored when this JVM inherited it ignored (as a background job of a non-interactive shell does, and
     * its children after it): a JVM that starts with SIGINT ignored keeps ignoring it, and a test of what SIGINT does
     * would then test nothing.
     */
    static Process startJvm(Class<?> mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (sigintIgnoredHere()) {
            cmd.addAll(List.of("env", "--default-signal=INT")); // env execs: the pid stays the JVM's
        }
        cmd.addAll(JvmCommand.base());
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Whether SIGINT is ignored in this process, from the SigIgn mask of /proc/self/status (bit 0 is signal 1). */
    private static boolean sigintIgnoredHere() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << (2 - 1))) != 0;
            }
        }
        throw new IOException("/proc/self/status has no SigIgn line");
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

    /**
     * The pids of the processes a test started, each with its handle taken when recorded. The clean-up judges and
     * kills exactly those processes through the handles (they know the start time), never a later process that was
     * given a freed pid.
     */
    static class StartedProcesses extends ArrayList<Long> {
        private final List<ProcessHandle> handles = new ArrayList<>();

        @Override
        public boolean add(Long pid) {
            ProcessHandle.of(pid).ifPresent(handles::add); // absent: already gone, nothing to clean up
            return super.add(pid);
        }

        @Override
        public boolean addAll(java.util.Collection<? extends Long> pids) {
            pids.forEach(this::add);
            return !pids.isEmpty();
        }

        /** Waits up to {@code millis} for every recorded process to end, kills the rest; returns their pids. */
        List<Long> endAll(long millis) {
            waitUntil(millis, () -> handles.stream().noneMatch(ProcessHandle::isAlive));
            List<Long> left = new ArrayList<>();
            for (ProcessHandle h : handles) {
                if (h.isAlive()) {
                    left.add(h.pid());
                    h.destroyForcibly();
                }
            }
            return left;
        }
    }
}
