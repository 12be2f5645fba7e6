package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.driver.CuDriver;

/** Process-wide CUDA driver state: initialisation and version. */
public final class Cuda {
    private static volatile boolean initialized;
    /** The thread of {@link #initInBackground}, once started. */
    private static volatile Thread starter;

    private Cuda() {}

    /**
     * Initialises the driver ({@code cuInit}) once per process; later calls return at once. Waits for a start
     * begun by {@link #initInBackground}.
     *
     * @throws org.cudaipc4j.driver.DriverNotFoundException when there is no NVIDIA driver
     * @throws CudaException when the driver refuses (e.g. {@code CUDA_ERROR_NO_DEVICE})
     */
    public static void init() {
        if (initialized) {
            return;
        }
        Thread background = starter;
        if (background != null && background != Thread.currentThread()) {
            joinUninterruptibly(background);
        }
        synchronized (Cuda.class) {
            if (!initialized) {
                Cu.check("cuInit", CuDriver.cuInit(0));
                initialized = true;
            }
        }
    }

    /**
     * Runs {@code first}, then {@link #init()}, on a daemon thread and returns at once, so the driver's start-up (the
     * slowest step of a short CUDA process) overlaps whatever the caller does next. {@code first} is for what must
     * happen before the driver starts (its environment); {@link #init()} callers wait for both. {@code then} runs
     * on the same thread once the driver has started (a timestamp). Nothing is reported here: the driver starts even
     * when {@code first} failed (what it sets is a preference), and the next {@link #init()} call reports a failure
     * of the driver's start. Only the first call starts a thread.
     */
    public static void initInBackground(Runnable first, Runnable then) {
        synchronized (Cuda.class) {
            if (initialized || starter != null) {
                return;
            }
            starter = Thread.ofPlatform().daemon().name("cudaipc4j-cuinit").start(() -> {
                try {
                    first.run();
                } catch (RuntimeException e) {
                    // A preference for the driver's start; it starts without it.
                }
                try {
                    init();
                    then.run();
                } catch (RuntimeException | LinkageError e) {
                    // No driver or no device: the caller's own init() says so.
                }
            });
        }
    }

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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
