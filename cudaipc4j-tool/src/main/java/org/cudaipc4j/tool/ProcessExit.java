package org.cudaipc4j.tool;

import org.cudaipc4j.coord.ParentWatch;
import org.cudaipc4j.coord.ProcessEnd;

/**
 * How the tool's processes end. Normally ({@link #exit}) every resource was closed explicitly and the process ends
 * through {@code System.exit}; the CUDA driver's own at-exit handlers find at most a primary context that a
 * simpleIPC child left to them (see {@code Context.closeBeforeExit}), and its interprocess bookkeeping (files it
 * keeps in {@code /dev/shm}) is removed.
 *
 * <p>{@link #abandon} is for a child whose group failed while its stream may still hold work that waits for a
 * record a dead sibling never ran: tearing that context down (or the driver's at-exit handler doing it) waits
 * for the work, for seconds. The process ends at once instead ({@code _exit(2)}) and the kernel reclaims
 * its device state, as for a process that is killed.
 */
public final class ProcessExit {
    private ProcessExit() {}

    /**
     * {@link ParentWatch#whenGone} for a process a bench started ({@link ToolSettings#BENCH_PID} holds
     * {@code value}); a value that is not the pid of another process ends this process with one line and
     * {@link ExitCodes#USAGE}, as does a {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} that is no silence limit.
     *
     * @param value the variable's value, or null
     * @param end what ends this process, given the bench's pid and what became of it ("is gone", "stopped
     *     responding for 3.0 s")
     */
    public static void whenBenchGone(String value, ParentWatch.End end) {
        try {
            ParentWatch.whenGone(ToolSettings.BENCH_PID.name(), value, end);
        } catch (IllegalArgumentException e) {
            System.err.println("cudaipc4j: " + e.getMessage());
            exit(ExitCodes.USAGE);
        }
    }

    /** Flushes standard output and error and ends the process with {@code code}; does not return. */
    public static void exit(int code) {
        exit(code, false);
    }

    /**
     * Flushes standard output and error and ends the process with {@code code}; does not return. With
     * {@code quiet}, for a JVM that writes an AOT cache at exit ({@code -XX:AOTCacheOutput}) and prints what it
     * does on standard output and error, those lines, which are not the tool's, go to {@code /dev/null}.
     */
    public static void exit(int code, boolean quiet) {
        System.out.flush();
        System.err.flush();
        if (quiet) {
            silenceStandardStreams();
        }
        System.exit(code);
    }

    /** Points file descriptors 1 and 2 at {@code /dev/null} (for what the JVM itself prints on its way out). */
    private static void silenceStandardStreams() {
        try {
            ProcessEnd.silenceStandardStreams();
        } catch (Throwable t) {
            // The JVM's lines then show: noise, not a failure.
        }
    }

    /**
     * Flushes standard output and error and ends the process at once ({@code _exit}); does not return. The JVM's
     * own exit does not run, so the one file it would remove is removed here first (see {@link #perfDataFile}).
     */
    public static void abandon(int code) {
        System.out.flush();
        System.err.flush();
        try {
            java.nio.file.Files.deleteIfExists(perfDataFile(ProcessHandle.current().pid()));
        } catch (java.io.IOException | RuntimeException e) {
            // Not ours, or gone: the next JVM of this user removes a dead process's file anyway.
        }
        try {
            ProcessEnd.now(code);
        } catch (Throwable t) {
            Runtime.getRuntime().halt(code);
        }
    }

    /**
     * The JVM's performance-data file of process {@code pid} ({@code jps} and {@code jstat} read it), which HotSpot
     * keeps in {@code /tmp/hsperfdata_<user>} and removes at its exit, unless {@code -XX:-UsePerfData}.
     */
    static java.nio.file.Path perfDataFile(long pid) {
        return java.nio.file.Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"), Long.toString(pid));
    }
}
