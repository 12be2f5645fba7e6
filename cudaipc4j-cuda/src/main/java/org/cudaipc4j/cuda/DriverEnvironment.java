package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Settings the CUDA driver reads from the process environment (with the C library's {@code getenv}) when it starts
 * and when it creates a context. Java cannot change its own environment, so these are set in the C environment
 * ({@code setenv}), which is what the driver reads: call before the driver starts, from one thread, before other
 * threads of this process could read the environment.
 */
public final class DriverEnvironment {
    /**
     * Hardware work queues per context (the driver's default is 8). A process that uses one stream needs one; each
     * queue costs time at context creation and teardown. Read when the driver starts.
     */
    public static final String MAX_CONNECTIONS = "CUDA_DEVICE_MAX_CONNECTIONS";

    private DriverEnvironment() {}

    // One holder per function, linked on first use: the start-up path sets and never reads back, and each linked
    // signature costs milliseconds before the driver can start.
    private static final class Setenv {
        static final MethodHandle H = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().findOrThrow("setenv"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    private static final class Getenv {
        static final MethodHandle H = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().findOrThrow("getenv"), FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /**
     * Sets {@code name} to {@code value} in the C environment unless it is set already (a user's choice wins).
     *
     * @param name the variable's name
     * @param value its default value
     * @return the value in effect afterwards
     */
    public static String setDefault(String name, String value) {
        setUnlessSet(name, value);
        return get(name);
    }

    /**
     * Sets {@code name} to {@code value} in the C environment unless it is set already.
     *
     * @param name the variable's name
     * @param value its default value
     */
    @SuppressWarnings("restricted") // libc's own environment function, called with strings we allocate
    public static void setUnlessSet(String name, String value) {
        int rc;
        try (Arena arena = Arena.ofConfined()) {
            rc = (int) Setenv.H.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot set " + name + " in the environment", t);
        }
        if (rc != 0) {
            throw new IllegalStateException("setenv(" + name + ") failed");
        }
    }

    /**
     * {@return what the C environment holds for {@code name} (null when unset)}
     *
     * @param name the variable's name
     */
    @SuppressWarnings("restricted")
    public static String get(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment now = (MemorySegment) Getenv.H.invokeExact(arena.allocateFrom(name));
            return now.equals(MemorySegment.NULL) ? null : now.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read " + name + " from the environment", t);
        }
    }
}
