package org.cudaipc4j.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

/**
 * Links {@link CuDriver} downcall handles on a background daemon thread, and warms calls once the driver has
 * started.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A holder the main thread reaches first is simply linked there; class
 * initialisation makes the two safe together.
 *
 * <p>The first call through a handle costs milliseconds more (the code that invokes it is made then: a few ms for
 * a plain signature, more for by-value structs). {@linkplain #WARM_CALLS Warm calls} call a function once in a way
 * the driver refuses before it does anything: the calling thread has no current context and every device, handle
 * and pointer is invalid (-1, null, a zeroed IPC handle).
 */
public final class Prelink {
    /** System property that turns prelinking off (for measuring what it saves). */
    public static final String DISABLE_PROPERTY = "cudaipc4j.noPrelink";
    /** System property that turns the warm-up calls off (for measuring what they save). */
    public static final String NO_WARM_UP_PROPERTY = "cudaipc4j.noWarmUp";

    /** A refused call per function that can be warmed: given 64 bytes of zeroed scratch, returns the result code. */
    static final Map<String, ToIntFunction<MemorySegment>> WARM_CALLS = warmCalls();

    /** Symbols whose holder was linked by {@link #link}: what the background thread got done. */
    static final Set<String> LINKED = ConcurrentHashMap.newKeySet();
    /** The codes of the last background warm-up, empty until one ran. */
    static volatile Map<String, Integer> lastWarmUp = Map.of();

    private Prelink() {}

    /** Only calls seen refused on the GPU machine belong here: some entry points do not check every argument. */
    private static Map<String, ToIntFunction<MemorySegment>> warmCalls() {
        MemorySegment none = MemorySegment.NULL;
        Map<String, ToIntFunction<MemorySegment>> w = new LinkedHashMap<>();
        // out: room for any out-parameter, a 64-byte IPC handle included (the zeroed handle is passed by value).
        w.put("cuDevicePrimaryCtxRetain", out -> CuDriver.cuDevicePrimaryCtxRetain(out, -1));
        w.put("cuMemAlloc_v2", out -> CuDriver.cuMemAlloc_v2(out, 0));
        w.put("cuEventCreate", out -> CuDriver.cuEventCreate(out, 0));
        w.put("cuIpcGetMemHandle", out -> CuDriver.cuIpcGetMemHandle(out, 0));
        w.put("cuIpcGetEventHandle", out -> CuDriver.cuIpcGetEventHandle(out, none));
        w.put("cuStreamCreate", out -> CuDriver.cuStreamCreate(out, 0));
        w.put("cuModuleLoadData", out -> CuDriver.cuModuleLoadData(out, none));
        w.put("cuModuleGetFunction", out -> CuDriver.cuModuleGetFunction(out, none, none));
        w.put("cuIpcOpenMemHandle_v2", out -> CuDriver.cuIpcOpenMemHandle_v2(out, out, 0));
        w.put("cuMemGetAddressRange_v2", out -> CuDriver.cuMemGetAddressRange_v2(none, out, 0));
        w.put("cuIpcOpenEventHandle", out -> CuDriver.cuIpcOpenEventHandle(out, out));
        w.put("cuStreamWaitEvent", out -> CuDriver.cuStreamWaitEvent(none, none, 0));
        w.put("cuLaunchKernel", out -> CuDriver.cuLaunchKernel(none, 1, 1, 1, 1, 1, 1, 0, none, none, none));
        w.put("cuEventRecord", out -> CuDriver.cuEventRecord(none, none));
        w.put("cuEventQuery", out -> CuDriver.cuEventQuery(none));
        w.put("cuMemsetD8Async", out -> CuDriver.cuMemsetD8Async(0, 0, 1, none));
        w.put("cuMemcpyDtoHAsync_v2", out -> CuDriver.cuMemcpyDtoHAsync_v2(out, 0, 1, none));
        w.put("cuStreamSynchronize", out -> CuDriver.cuStreamSynchronize(none));
        // Stream memory operations on registered host memory (simpleIPC's counters).
        w.put("cuMemHostRegister_v2", out -> CuDriver.cuMemHostRegister_v2(none, 0, 0));
        w.put("cuMemHostGetDevicePointer_v2", out -> CuDriver.cuMemHostGetDevicePointer_v2(out, none, 0));
        w.put("cuStreamWaitValue32_v2", out -> CuDriver.cuStreamWaitValue32_v2(none, 0, 0, 0));
        w.put("cuStreamWriteValue32_v2", out -> CuDriver.cuStreamWriteValue32_v2(none, 0, 0, 0));
        // Importing VMM and pool memory: fd -1, size 0, null handles and pools.
        w.put("cuMemImportFromShareableHandle", out -> CuDriver.cuMemImportFromShareableHandle(out,
                MemorySegment.ofAddress(-1), 1));
        w.put("cuMemGetAllocationGranularity", out -> CuDriver.cuMemGetAllocationGranularity(out, none, 0));
        w.put("cuMemAddressReserve", out -> CuDriver.cuMemAddressReserve(out, 0, 0, 0, 0));
        w.put("cuMemMap", out -> CuDriver.cuMemMap(0, 0, 0, 0, 0));
        w.put("cuMemSetAccess", out -> CuDriver.cuMemSetAccess(0, 0, none, 0));
        w.put("cuMemRelease", out -> CuDriver.cuMemRelease(0));
        w.put("cuMemPoolImportFromShareableHandle", out -> CuDriver.cuMemPoolImportFromShareableHandle(out,
                MemorySegment.ofAddress(-1), 1, 0));
        w.put("cuMemPoolImportPointer", out -> CuDriver.cuMemPoolImportPointer(out, none, none));
        return Map.copyOf(w);
    }

    /**
     * Starts the background linking and returns its thread, or null when {@value #DISABLE_PROPERTY} is true. Does
     * nothing when the driver is not there.
     *
     * @param first       functions to link first, in this order (what the process calls soonest); then the rest
     * @param awaitDriver run once the handles are linked; returns when the driver has started (it may start it),
     *                    throws when it cannot. Null for no warm calls.
     * @param warm        functions to {@linkplain #warm warm} after {@code awaitDriver}, unless
     *                    {@value #NO_WARM_UP_PROPERTY} is true
     * @throws IllegalArgumentException when a name is not bound, or cannot be warmed
     */
    public static Thread startInBackground(List<String> first, Runnable awaitDriver, Collection<String> warm) {
        requireBound(first);
        requireWarmable(warm);
        if (Boolean.getBoolean(DISABLE_PROPERTY)) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("cudaipc4j-prelink").start(() -> {
            if (!CudaLibrary.isAvailable()) {
                return;
            }
            Set<String> order = new LinkedHashSet<>(first);
            order.addAll(CuSymbols.TABLE.keySet());
            for (String symbol : order) {
                link(symbol);
            }
            if (awaitDriver != null && !warm.isEmpty() && !Boolean.getBoolean(NO_WARM_UP_PROPERTY)) {
                try {
                    awaitDriver.run();
                    lastWarmUp = warm(warm);
                } catch (RuntimeException | LinkageError e) {
                    // The driver did not start, or a function is missing: the real calls report that.
                }
            }
        });
    }

    /** Links {@code symbol}'s handle now (each lives in a holder class named after it, linked when initialised). */
    static void link(String symbol) {
        try {
            Class.forName(CuDriver.class.getName() + "$" + symbol, true, CuDriver.class.getClassLoader());
            LINKED.add(symbol);
        } catch (ClassNotFoundException | LinkageError e) {
            // No holder for this symbol, or it cannot link: the real call reports that.
        }
    }

    /**
     * Calls each of {@code functions} once in a way the driver refuses. Call after the driver has started, on a
     * thread that has never made a context current.
     *
     * @return each function's result code, in call order (none should be {@code CUDA_SUCCESS})
     */
    public static Map<String, Integer> warm(Collection<String> functions) {
        requireWarmable(functions);
        Map<String, Integer> codes = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment scratch = arena.allocate(64, 8);
            for (String f : functions) {
                scratch.fill((byte) 0);
                codes.put(f, WARM_CALLS.get(f).applyAsInt(scratch));
            }
        }
        return codes;
    }

    /** The functions {@link #warm} can call. */
    public static Set<String> warmable() {
        return WARM_CALLS.keySet();
    }

    private static void requireBound(Collection<String> names) {
        for (String n : names) {
            if (!CuSymbols.TABLE.containsKey(n)) {
                throw new IllegalArgumentException(n + " is not a bound driver function");
            }
        }
    }

    private static void requireWarmable(Collection<String> names) {
        for (String n : names) {
            if (!WARM_CALLS.containsKey(n)) {
                throw new IllegalArgumentException(n + " has no refused call to warm it with");
            }
        }
    }
}
