package org.cudaipc4j.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

/**
 * Links the downcall handles of {@link CuDriver}'s functions on a background daemon thread, and warms calls once the
 * driver has started.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A function the main thread calls first is simply linked there; a call that finds
 * its function being linked here waits for it.
 *
 * <p>The first call through a handle costs milliseconds more (the code that invokes it is made then: a few ms for
 * a plain signature, more for by-value structs). {@linkplain #WARM_CALLS Warm calls} call a function once in a way
 * the driver refuses before it does anything: the calling thread has no current context and every device, handle
 * and pointer is invalid (-1, null, a zeroed IPC handle).
 */
public final class Prelink {
    /**
     * A refused call per function that can be warmed, in warm-up order: given 64 bytes of zeroed scratch, returns the
     * result code.
     */
    static final Map<CuFunction, ToIntFunction<MemorySegment>> WARM_CALLS = warmCalls();
    /** The names of {@link #WARM_CALLS}, in the same order. */
    private static final Set<String> WARMABLE = names(WARM_CALLS.keySet());

    /** Functions linked by {@link #link}, by name: what the background thread got done. */
    static final Set<String> LINKED = ConcurrentHashMap.newKeySet();
    /** The codes of the last background warm-up, empty until one ran. */
    static volatile Map<String, Integer> lastWarmUp = Map.of();

    private Prelink() {}

    /** Only calls seen refused on the GPU machine belong here: some entry points do not check every argument. */
    private static Map<CuFunction, ToIntFunction<MemorySegment>> warmCalls() {
        MemorySegment none = MemorySegment.NULL;
        MemorySegment fdMinusOne = MemorySegment.ofAddress(-1);
        byte[] zeroHandle = new byte[CuSymbols.IPC_HANDLE_SIZE];
        Map<CuFunction, ToIntFunction<MemorySegment>> w = new LinkedHashMap<>();
        // out: room for any out-parameter; IPC handles passed by value are zeroed.
        w.put(CuDriver.DEVICE_PRIMARY_CTX_RETAIN, out -> CuDriver.DEVICE_PRIMARY_CTX_RETAIN.call(out, -1));
        w.put(CuDriver.MEM_ALLOC, out -> CuDriver.MEM_ALLOC.call(out, 0));
        w.put(CuDriver.EVENT_CREATE, out -> CuDriver.EVENT_CREATE.call(out, 0));
        w.put(CuDriver.IPC_GET_MEM_HANDLE, out -> CuDriver.IPC_GET_MEM_HANDLE.call(out, 0));
        w.put(CuDriver.IPC_GET_EVENT_HANDLE, out -> CuDriver.IPC_GET_EVENT_HANDLE.call(out, none));
        w.put(CuDriver.STREAM_CREATE, out -> CuDriver.STREAM_CREATE.call(out, 0));
        w.put(CuDriver.MODULE_LOAD_DATA, out -> CuDriver.MODULE_LOAD_DATA.call(out, none));
        w.put(CuDriver.MODULE_GET_FUNCTION, out -> CuDriver.MODULE_GET_FUNCTION.call(out, none, none));
        w.put(CuDriver.IPC_OPEN_MEM_HANDLE, out -> CuDriver.IPC_OPEN_MEM_HANDLE.call(out, zeroHandle, 0));
        w.put(CuDriver.MEM_GET_ADDRESS_RANGE, out -> CuDriver.MEM_GET_ADDRESS_RANGE.call(none, out, 0));
        w.put(CuDriver.IPC_OPEN_EVENT_HANDLE, out -> CuDriver.IPC_OPEN_EVENT_HANDLE.call(out, zeroHandle));
        w.put(CuDriver.STREAM_WAIT_EVENT, out -> CuDriver.STREAM_WAIT_EVENT.call(none, none, 0));
        w.put(CuDriver.LAUNCH_KERNEL, out -> CuDriver.LAUNCH_KERNEL.call(none, 1, 1, 1, 1, 1, 1, 0, none, none, none));
        w.put(CuDriver.EVENT_RECORD, out -> CuDriver.EVENT_RECORD.call(none, none));
        w.put(CuDriver.EVENT_QUERY, out -> CuDriver.EVENT_QUERY.call(none));
        w.put(CuDriver.MEMSET_D8_ASYNC, out -> CuDriver.MEMSET_D8_ASYNC.call(0, 0, 1, none));
        w.put(CuDriver.MEMCPY_DTOH_ASYNC, out -> CuDriver.MEMCPY_DTOH_ASYNC.call(out, 0, 1, none));
        w.put(CuDriver.STREAM_SYNCHRONIZE, out -> CuDriver.STREAM_SYNCHRONIZE.call(none));
        // Stream memory operations on registered host memory (simpleIPC's counters).
        w.put(CuDriver.MEM_HOST_REGISTER, out -> CuDriver.MEM_HOST_REGISTER.call(none, 0, 0));
        w.put(CuDriver.MEM_HOST_GET_DEVICE_POINTER, out -> CuDriver.MEM_HOST_GET_DEVICE_POINTER.call(out, none, 0));
        w.put(CuDriver.STREAM_WAIT_VALUE32, out -> CuDriver.STREAM_WAIT_VALUE32.call(none, 0, 0, 0));
        w.put(CuDriver.STREAM_WRITE_VALUE32, out -> CuDriver.STREAM_WRITE_VALUE32.call(none, 0, 0, 0));
        // Importing VMM and pool memory: fd -1, size 0, null handles and pools.
        w.put(CuDriver.MEM_IMPORT_FROM_SHAREABLE_HANDLE,
                out -> CuDriver.MEM_IMPORT_FROM_SHAREABLE_HANDLE.call(out, fdMinusOne, 1));
        w.put(CuDriver.MEM_GET_ALLOCATION_GRANULARITY,
                out -> CuDriver.MEM_GET_ALLOCATION_GRANULARITY.call(out, none, 0));
        w.put(CuDriver.MEM_ADDRESS_RESERVE, out -> CuDriver.MEM_ADDRESS_RESERVE.call(out, 0, 0, 0, 0));
        w.put(CuDriver.MEM_MAP, out -> CuDriver.MEM_MAP.call(0, 0, 0, 0, 0));
        w.put(CuDriver.MEM_SET_ACCESS, out -> CuDriver.MEM_SET_ACCESS.call(0, 0, none, 0));
        w.put(CuDriver.MEM_RELEASE, out -> CuDriver.MEM_RELEASE.call(0));
        w.put(CuDriver.MEM_POOL_IMPORT_FROM_SHAREABLE_HANDLE,
                out -> CuDriver.MEM_POOL_IMPORT_FROM_SHAREABLE_HANDLE.call(out, fdMinusOne, 1, 0));
        w.put(CuDriver.MEM_POOL_IMPORT_POINTER, out -> CuDriver.MEM_POOL_IMPORT_POINTER.call(out, none, none));
        return Collections.unmodifiableMap(w);
    }

    private static Set<String> names(Collection<CuFunction> functions) {
        Set<String> names = new LinkedHashSet<>();
        for (CuFunction f : functions) {
            names.add(f.name());
        }
        return Collections.unmodifiableSet(names);
    }

    /**
     * Starts the background linking and returns its thread, or null when {@code cudaipc4j.noPrelink} is true. Does
     * nothing when the driver is not there.
     *
     * @param first       functions to link first, in this order (what the process calls soonest); then the rest
     * @param awaitDriver run once the handles are linked; returns when the driver has started (it may start it),
     *                    throws when it cannot. Null for no warm calls.
     * @param warm        functions to {@linkplain #warm warm} after {@code awaitDriver}, unless
     *                    {@code cudaipc4j.noWarmUp} is true
     * @return the thread, or null when disabled
     * @throws IllegalArgumentException when a name is not bound, or cannot be warmed
     */
    public static Thread startInBackground(List<String> first, Runnable awaitDriver, Collection<String> warm) {
        requireBound(first);
        requireWarmable(warm);
        if (CudaSettings.NO_PRELINK.get()) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("cudaipc4j-prelink").start(() -> {
            if (!CudaLibrary.isAvailable()) {
                return;
            }
            Set<CuFunction> order = new LinkedHashSet<>();
            for (String name : first) {
                order.add(CuDriver.named(name).orElseThrow());
            }
            order.addAll(CuDriver.functions());
            for (CuFunction function : order) {
                link(function);
            }
            if (awaitDriver != null && !warm.isEmpty() && !CudaSettings.NO_WARM_UP.get()) {
                try {
                    awaitDriver.run();
                    lastWarmUp = warm(warm);
                } catch (RuntimeException | LinkageError e) {
                    // The driver did not start, or a function is missing: the real calls report that.
                }
            }
        });
    }

    /** Links {@code function}'s handle now. */
    static void link(CuFunction function) {
        try {
            function.link();
            LINKED.add(function.name());
        } catch (RuntimeException | LinkageError e) {
            // It cannot link: the real call reports that.
        }
    }

    /**
     * Calls each of {@code functions} once in a way the driver refuses. Call after the driver has started, on a
     * thread that has never made a context current.
     *
     * @param functions the functions' names
     * @return each function's result code, in call order (none should be {@code CUDA_SUCCESS})
     */
    public static Map<String, Integer> warm(Collection<String> functions) {
        requireWarmable(functions);
        Map<String, Integer> codes = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment scratch = arena.allocate(64, 8);
            for (String f : functions) {
                scratch.fill((byte) 0);
                codes.put(f, WARM_CALLS.get(CuDriver.named(f).orElseThrow()).applyAsInt(scratch));
            }
        }
        return codes;
    }

    /** {@return the functions {@link #warm} can call, by name, in a fixed order} */
    public static Set<String> warmable() {
        return WARMABLE;
    }

    private static void requireBound(Collection<String> names) {
        for (String n : names) {
            if (CuDriver.named(n).isEmpty()) {
                throw new IllegalArgumentException(n + " is not a bound driver function");
            }
        }
    }

    private static void requireWarmable(Collection<String> names) {
        for (String n : names) {
            if (!WARMABLE.contains(n)) {
                throw new IllegalArgumentException(n + " has no refused call to warm it with");
            }
        }
    }
}
