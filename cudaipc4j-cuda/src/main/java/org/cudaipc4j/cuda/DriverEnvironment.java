package org.cudaipc4j.cuda;

import org.cudaipc4j.base.Libc;

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
    public static void setUnlessSet(String name, String value) {
        // libc's setenv is linked on first use: the start-up path sets and never reads back.
        if (Libc.setenv(name, value, false) != 0) {
            throw new IllegalStateException("setenv(" + name + ") failed");
        }
    }

    /**
     * {@return what the C environment holds for {@code name} (null when unset)}
     *
     * @param name the variable's name
     */
    public static String get(String name) {
        return Libc.getenv(name);
    }
}
