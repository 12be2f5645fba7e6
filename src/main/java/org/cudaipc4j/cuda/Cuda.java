package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.driver.CuDriver;

/** Process-wide CUDA driver state: initialisation and version. */
public final class Cuda {
    private static volatile boolean initialized;

    private Cuda() {}

    /**
     * Initialises the driver ({@code cuInit}) once per process; later calls return at once.
     *
     * @throws org.cudaipc4j.driver.DriverNotFoundException when there is no NVIDIA driver
     * @throws CudaException when the driver refuses (e.g. {@code CUDA_ERROR_NO_DEVICE})
     */
    public static void init() {
        if (!initialized) {
            synchronized (Cuda.class) {
                if (!initialized) {
                    Cu.check("cuInit", CuDriver.cuInit(0));
                    initialized = true;
                }
            }
        }
    }

    /**
     * Starts {@link #init()} on a daemon thread and returns at once, so the driver's start-up (the slowest step of
     * a short CUDA process) overlaps whatever the caller does next. A failure is left for the next {@link #init()}
     * call to report; that call also waits for this one to finish.
     */
    public static void initInBackground() {
        if (initialized) {
            return;
        }
        Thread.ofPlatform().daemon().name("cudaipc4j-cuinit").start(() -> {
            try {
                init();
            } catch (RuntimeException | LinkageError e) {
                // No driver or no device: the caller's own init() says so.
            }
        });
    }

    /** The driver's CUDA version as {@code 1000 * major + 10 * minor} (e.g. {@code 13000}). */
    public static int driverVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            Cu.check("cuDriverGetVersion", CuDriver.cuDriverGetVersion(out));
            return out.get(JAVA_INT, 0);
        }
    }

    /** {@link #driverVersion()} as {@code major.minor}, e.g. {@code 13.0}. */
    public static String driverVersionString() {
        int v = driverVersion();
        return (v / 1000) + "." + (v % 1000) / 10;
    }
}
