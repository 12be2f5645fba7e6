package org.cudaipc4j.app;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * How the tool's processes end, chosen by the system property {@value #MODE_PROPERTY}.
 *
 * <ul>
 *   <li>{@code normal}: every resource is closed explicitly, CUDA contexts included, then {@code System.exit}
 *       (shutdown hooks, then the C library's at-exit handlers, among them the CUDA driver's).</li>
 *   <li>{@code fast}: what other processes can notice is released explicitly (IPC mappings closed, exported
 *       memory and events freed, children reaped, shared memory unlinked, output flushed); the process's own CUDA
 *       contexts are left to the end of the process, which tears them down anyway, and the process ends at once
 *       ({@code _exit(2)}), as a killed process would. Tearing a context down explicitly first costs about a
 *       hundred milliseconds that nothing needs.</li>
 * </ul>
 */
public final class ProcessExit {
    /** System property: {@code normal} or {@code fast}. */
    public static final String MODE_PROPERTY = "cudaipc4j.exit";
    /** The mode when the property is not set. */
    public static final String DEFAULT_MODE = "normal";

    private ProcessExit() {}

    /** True when contexts are left to the end of the process ({@code fast}). */
    public static boolean isFast() {
        // An AOT training run writes its cache in the JVM's own exit path, which _exit would skip.
        return "fast".equals(System.getProperty(MODE_PROPERTY, DEFAULT_MODE)) && !AotTraining.requested();
    }

    /** Flushes standard output and error and ends the process with {@code code}; does not return. */
    public static void exit(int code) {
        System.out.flush();
        System.err.flush();
        if (isFast()) {
            immediate(code);
        }
        System.exit(code);
    }

    /** {@code _exit(code)}: no shutdown hooks, no at-exit handlers. */
    private static void immediate(int code) {
        try {
            MethodHandle exit = Linker.nativeLinker().downcallHandle(
                    Linker.nativeLinker().defaultLookup().findOrThrow("_exit"), FunctionDescriptor.ofVoid(JAVA_INT));
            exit.invokeExact(code);
        } catch (Throwable t) {
            Runtime.getRuntime().halt(code);
        }
    }
}
