package org.cudaipc4j.simpleipc;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

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
    /**
     * System property: this process's JVM writes an AOT cache at exit ({@code -XX:AOTCacheOutput}), which prints
     * what it does on standard output and error; those lines are not the tool's, so they go to {@code /dev/null}.
     */
    public static final String QUIET_EXIT_PROPERTY = "cudaipc4j.quietExit";

    private ProcessExit() {}

    /** Flushes standard output and error and ends the process with {@code code}; does not return. */
    public static void exit(int code) {
        System.out.flush();
        System.err.flush();
        if (Boolean.getBoolean(QUIET_EXIT_PROPERTY)) {
            silenceStandardStreams();
        }
        System.exit(code);
    }

    /** Points file descriptors 1 and 2 at {@code /dev/null} (for what the JVM itself prints on its way out). */
    @SuppressWarnings("restricted") // libc's open and dup2, once on the way out
    private static void silenceStandardStreams() {
        Linker linker = Linker.nativeLinker();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MethodHandle open = linker.downcallHandle(linker.defaultLookup().findOrThrow("open"),
                    FunctionDescriptor.of(JAVA_INT, java.lang.foreign.ValueLayout.ADDRESS, JAVA_INT, JAVA_INT),
                    Linker.Option.firstVariadicArg(2));
            MethodHandle dup2 = linker.downcallHandle(linker.defaultLookup().findOrThrow("dup2"),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
            int devNull = (int) open.invokeExact(arena.allocateFrom("/dev/null"), 1 /* O_WRONLY */, 0);
            if (devNull >= 0) {
                for (int standard = 1; standard <= 2; standard++) {
                    int unusedResult = (int) dup2.invokeExact(devNull, standard);
                }
            }
        } catch (Throwable t) {
            // The JVM's lines then show: noise, not a failure.
        }
    }

    /**
     * Flushes standard output and error and ends the process at once ({@code _exit}); does not return. The JVM's
     * own exit does not run, so the one file it would remove is removed here first (see {@link #perfDataFile}).
     */
    @SuppressWarnings("restricted") // libc's _exit, called once on the way out
    public static void abandon(int code) {
        System.out.flush();
        System.err.flush();
        try {
            java.nio.file.Files.deleteIfExists(perfDataFile(ProcessHandle.current().pid()));
        } catch (java.io.IOException | RuntimeException e) {
            // Not ours, or gone: the next JVM of this user removes a dead process's file anyway.
        }
        try {
            MethodHandle exit = Linker.nativeLinker().downcallHandle(
                    Linker.nativeLinker().defaultLookup().findOrThrow("_exit"), FunctionDescriptor.ofVoid(JAVA_INT));
            exit.invokeExact(code);
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
