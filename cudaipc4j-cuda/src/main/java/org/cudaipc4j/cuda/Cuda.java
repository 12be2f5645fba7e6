package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.cudaipc4j.cuda.driver.CudaLibrary;
import org.cudaipc4j.cuda.driver.DeviceCalls;
import org.cudaipc4j.cuda.driver.Prelink;

/**
 * Process-wide CUDA driver state: the library, initialisation, version, and start-up helpers for short-lived
 * processes. All methods are thread-safe.
 */
public final class Cuda {
    static {
        // Every way into the driver passes this class first (init(), which the Device and Context factories call,
        // or the library queries below): from here on the binding reports through the public exceptions.
        CudaLibrary.reportFailuresWith(DriverNotFoundException::new, MissingSymbolException::new, CudaException::of);
    }

    private static volatile boolean initialized;
    /** The thread of {@link #initInBackground}, once started. */
    private static volatile Thread starter;

    private Cuda() {}

    /**
     * {@return true when the driver library ({@code libcuda.so.1}) loads in this process (loads it on the first call)}
     */
    public static boolean isDriverAvailable() {
        return CudaLibrary.isAvailable();
    }

    /**
     * The name under which the driver library loaded.
     *
     * @return the library's name, e.g. {@code libcuda.so.1}
     * @throws DriverNotFoundException when it did not load, listing the names tried
     */
    public static String driverLibraryName() {
        return CudaLibrary.loadedName();
    }

    /**
     * {@return why CUDA cannot be used in this process, in one line, or empty when the driver loads, starts ({@link
     * #init()}) and has at least one device: the missing driver library or symbol, "no CUDA device found", or "the CUDA
     * driver cannot be used: " and the driver's error}
     */
    public static java.util.Optional<String> unavailableReason() {
        try {
            init();
            return Device.count() > 0 ? java.util.Optional.empty() : java.util.Optional.of("no CUDA device found");
        } catch (DriverNotFoundException | MissingSymbolException e) {
            return java.util.Optional.of(e.getMessage());
        } catch (CudaException e) {
            return java.util.Optional.of(e.error() == CudaError.NO_DEVICE ? "no CUDA device found (" + e.getMessage()
                    + ")" : "the CUDA driver cannot be used: " + e.getMessage());
        } catch (RuntimeException e) {
            return java.util.Optional.of("the CUDA driver cannot be used: " + e);
        }
    }

    /**
     * Initialises the driver ({@code cuInit}) once per process; later calls return at once. Waits for a start
     * begun by {@link #initInBackground}.
     *
     * @throws DriverNotFoundException when there is no NVIDIA driver
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
                DeviceCalls.init(0);
                initialized = true;
            }
        }
    }

    /**
     * Runs {@code first}, then {@link #init()}, on a daemon thread and returns at once, so the driver's start-up (the
     * slowest step of a short CUDA process) overlaps whatever the caller does next. {@code first} is for what must
     * happen before the driver starts (its {@linkplain DriverEnvironment environment}); {@link #init()} callers wait
     * for both. {@code then} runs on the same thread once the driver has started (a timestamp). Nothing is reported
     * here: the driver starts even when {@code first} failed (what it sets is a preference), and the next
     * {@link #init()} call reports a failure of the driver's start. Only the first call starts a thread.
     *
     * @param first what runs before the driver starts
     * @param then what runs once it has started
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

    /**
     * Links the driver functions' FFM handles on a background daemon thread, {@code first} in the order given, then
     * every other bound function, so that the first real call of each does not pay for its linking. For a
     * short-lived process, start it first thing in {@code main}, beside {@link #initInBackground}. Does nothing
     * without a driver. The system property {@code cudaipc4j.noPrelink} turns it off.
     *
     * @param first functions (by their {@code cuda.h} names, e.g. {@code cuMemAlloc_v2}) the process calls soonest
     * @return the thread, or null when prelinking is turned off
     * @throws IllegalArgumentException when a name is not a bound function
     */
    public static Thread prelinkInBackground(List<String> first) {
        return Prelink.startInBackground(first);
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

    /** {@return the driver's CUDA version as {@code 1000 * major + 10 * minor} (e.g. {@code 13000})} */
    public static int driverVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            DeviceCalls.driverGetVersion(out);
            return out.get(JAVA_INT, 0);
        }
    }

    /** {@return {@link #driverVersion()} as {@code major.minor}, e.g. {@code 13.0}} */
    public static String driverVersionString() {
        int v = driverVersion();
        return (v / 1000) + "." + (v % 1000) / 10;
    }
}
