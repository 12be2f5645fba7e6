package org.cudaipc4j.app;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * How the tool's processes end once they have released everything explicitly (children reaped, CUDA resources
 * freed, shared memory unlinked, output flushed).
 *
 * <p>The system property {@value #MODE_PROPERTY} chooses: {@code exit} runs the JVM's shutdown ({@code System.exit}:
 * shutdown hooks, then the C library's at-exit handlers, among them the CUDA driver's own teardown); {@code halt}
 * skips the shutdown hooks; {@code immediate} ends the process at once ({@code _exit(2)}), the kernel closing what
 * is left, as it does for a process that is killed.
 */
public final class ProcessExit {
    /** System property: {@code exit}, {@code halt} or {@code immediate}. */
    public static final String MODE_PROPERTY = "cudaipc4j.exit";
    /** The mode when the property is not set. */
    public static final String DEFAULT_MODE = "exit";

    private ProcessExit() {}

    /** Flushes standard output and error and ends the process with {@code code}; does not return. */
    public static void exit(int code) {
        System.out.flush();
        System.err.flush();
        String mode = System.getProperty(MODE_PROPERTY, DEFAULT_MODE);
        switch (mode) {
            case "halt" -> Runtime.getRuntime().halt(code);
            case "immediate" -> immediate(code);
            default -> System.exit(code);
        }
    }

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
