package org.cudaipc4j.cuda.driver;

import java.lang.invoke.MethodHandle;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Links the downcall handles of the driver's functions ({@link CudaFunction}) on a background daemon thread.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A function the main thread calls first is simply linked there; a call that finds
 * its function being linked here waits for it.
 */
public final class Prelink {
    /** The classes that call the functions, each giving the handles of its own. */
    private static final List<Function<CudaFunction, MethodHandle>> CALLS = List.of(DeviceCalls::handle,
            MemoryCalls::handle, VmmCalls::handle, PoolCalls::handle, StreamCalls::handle, IpcCalls::handle,
            ModuleCalls::handle);

    /** Functions linked by {@link #link}, by name: what the background thread got done. */
    static final Set<String> LINKED = ConcurrentHashMap.newKeySet();

    private Prelink() {}

    /**
     * Starts the background linking and returns its thread, or null when {@code cudaipc4j.noPrelink} is true. Does
     * nothing when the driver is not there.
     *
     * @param first functions to link first, in this order (what the process calls soonest); then the rest
     * @return the thread, or null when disabled
     * @throws IllegalArgumentException when a name is not bound
     */
    public static Thread startInBackground(List<String> first) {
        requireBound(first);
        if (CudaSettings.NO_PRELINK.get()) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("cudaipc4j-prelink").start(() -> {
            if (!CudaLibrary.isAvailable()) {
                return;
            }
            Set<CudaFunction> order = new LinkedHashSet<>();
            for (String name : first) {
                order.add(CudaFunction.named(name).orElseThrow());
            }
            order.addAll(List.of(CudaFunction.values()));
            for (CudaFunction function : order) {
                link(function);
            }
        });
    }

    /**
     * Links {@code function}'s handle now unless it is, by initialising the holder class its call reads the handle
     * from: what its first call would do. Without the library or the function, the handle throws the reported
     * exception when called.
     *
     * @param function the function
     */
    public static void link(CudaFunction function) {
        try {
            handle(function);
            LINKED.add(function.name());
        } catch (RuntimeException | LinkageError e) {
            // It cannot link: the real call reports that.
        }
    }

    /** {@return the handle of {@code function}'s call, linked now unless it is} */
    static MethodHandle handle(CudaFunction function) {
        for (Function<CudaFunction, MethodHandle> calls : CALLS) {
            MethodHandle handle = calls.apply(function);
            if (handle != null) {
                return handle;
            }
        }
        throw new IllegalStateException(function + " has no call");
    }

    private static void requireBound(Collection<String> names) {
        for (String n : names) {
            if (CudaFunction.named(n).isEmpty()) {
                throw new IllegalArgumentException(n + " is not a bound driver function");
            }
        }
    }
}
