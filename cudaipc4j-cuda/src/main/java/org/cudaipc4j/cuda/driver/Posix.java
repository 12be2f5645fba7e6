package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * libc's {@code close}, for descriptors the driver exported (an export that fails later, a pool's own export).
 * The driver's environment settings bind {@code setenv} and {@code getenv} in {@code DriverEnvironment}, each linked
 * only when used.
 */
public final class Posix {
    private Posix() {}

    private static final class Close {
        static final MethodHandle H = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().findOrThrow("close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /**
     * Calls {@code close(fd)}.
     *
     * @param fd the file descriptor
     * @return its result: 0, or -1 on failure
     */
    @SuppressWarnings("restricted") // libc's close on a descriptor this process owns
    public static int close(int fd) {
        try {
            return (int) Close.H.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException("close(" + fd + ") failed: " + t, t);
        }
    }
}
