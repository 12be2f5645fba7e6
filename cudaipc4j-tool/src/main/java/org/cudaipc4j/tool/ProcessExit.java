package org.cudaipc4j.tool;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * How the tool's processes end. Normally ({@link #exit}) every resource was closed explicitly, CUDA contexts
 * included, and the process ends through {@code System.exit}; the CUDA driver's own at-exit handlers find nothing
 * left, and its interprocess bookkeeping (files it keeps in {@code /dev/shm}) is removed.
 *
 * <p>{@link #abandon} is for a child whose group failed while its stream may still hold work that waits for a
 * record a dead sibling never ran: tearing that context down (or the driver's at-exit handler doing it) waits
 * for the work, for seconds. The process ends at once instead ({@code _exit(2)}) and the kernel reclaims
 * its device state, as for a process that is killed.
 */
public final class ProcessExit {
    private ProcessExit() {}

    /** Flushes standard output and error and ends the process with {@code code}; does not return. */
    public static void exit(int code) {
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }

    /** Flushes standard output and error and ends the process at once ({@code _exit}); does not return. */
    @SuppressWarnings("restricted") // libc's _exit, called once on the way out
    public static void abandon(int code) {
        System.out.flush();
        System.err.flush();
        try {
            MethodHandle exit = Linker.nativeLinker().downcallHandle(
                    Linker.nativeLinker().defaultLookup().findOrThrow("_exit"), FunctionDescriptor.ofVoid(JAVA_INT));
            exit.invokeExact(code);
        } catch (Throwable t) {
            Runtime.getRuntime().halt(code);
        }
    }
}
