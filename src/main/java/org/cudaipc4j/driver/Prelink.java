package org.cudaipc4j.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Links every {@link CuDriver} function's downcall handle on a background daemon thread.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A holder the main thread reaches first is simply linked there; class
 * initialisation makes the two safe together.
 *
 * <p>The first call through a handle costs milliseconds more (the code that invokes it is made then: about 2-3 ms
 * for a plain signature, 5-10 ms for the by-value IPC handles). Given a way to wait for the driver, the thread then
 * {@linkplain #warmUp warms} the calls of a process's critical path: each is called once with arguments the
 * driver refuses before it does anything.
 */
public final class Prelink {
    /** System property that turns prelinking off (for measuring what it saves). */
    public static final String DISABLE_PROPERTY = "cudaipc4j.noPrelink";
    /** System property that turns the warm-up calls off (for measuring what they save). */
    public static final String NO_WARM_UP_PROPERTY = "cudaipc4j.noWarmUp";
    /**
     * Linked first, in this order: what a short-lived process calls soonest (device selection, context, memory and
     * IPC, module and stream, the step's calls). The main thread is then least likely to find a function unlinked.
     */
    static final List<String> START_UP_ORDER = List.of(
            "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute", "cuDeviceCanAccessPeer",
            "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuCtxEnablePeerAccess", "cuMemAlloc_v2", "cuEventCreate",
            "cuIpcGetMemHandle", "cuIpcGetEventHandle", "cuStreamCreate", "cuModuleLoadData", "cuModuleGetFunction",
            "cuFuncGetAttribute", "cuIpcOpenMemHandle_v2", "cuIpcOpenEventHandle", "cuStreamWaitEvent",
            "cuLaunchKernel", "cuEventRecord", "cuEventQuery", "cuMemsetD8Async", "cuMemcpyDtoHAsync_v2",
            "cuStreamSynchronize");

    private Prelink() {}

    /** As {@link #startInBackground(Runnable)} without the warm-up calls: handles are linked, nothing is called. */
    public static Thread startInBackground() {
        return startInBackground(null);
    }

    /**
     * Starts the background linking and returns its thread, or null when {@value #DISABLE_PROPERTY} is true.
     * Does nothing when the driver is not there.
     *
     * @param awaitDriver run on the background thread once the handles are linked; returns when the driver has
     *                    started (it may start it), throws when it cannot start. Then come the {@linkplain #warmUp
     *                    warm-up calls}, unless {@value #NO_WARM_UP_PROPERTY} is true. Null for none.
     */
    public static Thread startInBackground(Runnable awaitDriver) {
        if (Boolean.getBoolean(DISABLE_PROPERTY)) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("cudaipc4j-prelink").start(() -> {
            if (!CudaLibrary.isAvailable()) {
                return;
            }
            ClassLoader loader = CuDriver.class.getClassLoader();
            Set<String> order = new LinkedHashSet<>(START_UP_ORDER);
            order.addAll(CuSymbols.TABLE.keySet());
            for (String symbol : order) {
                try {
                    // Each function's handle lives in a holder class named after it, linked when initialised.
                    Class.forName(CuDriver.class.getName() + "$" + symbol, true, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // No holder for this symbol, or it cannot link: the real call reports that.
                }
            }
            if (awaitDriver != null && !Boolean.getBoolean(NO_WARM_UP_PROPERTY)) {
                try {
                    awaitDriver.run();
                    warmUp();
                } catch (RuntimeException | LinkageError e) {
                    // The driver did not start, or a function is missing: the real calls report that.
                }
            }
        });
    }

    /**
     * Calls, once each, the functions a short-lived process calls first (context, memory and IPC, module and
     * stream, the step's calls, the verification's), in a way the driver refuses before it does anything: this
     * thread has no current context, devices and handles are invalid (-1, null, a zeroed IPC handle). Call after
     * the driver has started and on a thread that has never made a context current.
     *
     * @return each function's result code, in call order (none should be {@code CUDA_SUCCESS})
     */
    static Map<String, Integer> warmUp() {
        Map<String, Integer> codes = new LinkedHashMap<>();
        MemorySegment none = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(64, 8); // room for any out-parameter, a 64-byte IPC handle included
            MemorySegment zeroHandle = arena.allocate(64, 8);
            codes.put("cuDevicePrimaryCtxRetain", CuDriver.cuDevicePrimaryCtxRetain(out, -1));
            codes.put("cuMemAlloc_v2", CuDriver.cuMemAlloc_v2(out, 0));
            codes.put("cuEventCreate", CuDriver.cuEventCreate(out, 0));
            codes.put("cuIpcGetMemHandle", CuDriver.cuIpcGetMemHandle(out, 0));
            codes.put("cuIpcGetEventHandle", CuDriver.cuIpcGetEventHandle(out, none));
            codes.put("cuStreamCreate", CuDriver.cuStreamCreate(out, 0));
            codes.put("cuModuleLoadData", CuDriver.cuModuleLoadData(out, none));
            codes.put("cuModuleGetFunction", CuDriver.cuModuleGetFunction(out, none, none));
            codes.put("cuIpcOpenMemHandle_v2", CuDriver.cuIpcOpenMemHandle_v2(out, zeroHandle, 0));
            codes.put("cuMemGetAddressRange_v2", CuDriver.cuMemGetAddressRange_v2(none, out, 0));
            codes.put("cuIpcOpenEventHandle", CuDriver.cuIpcOpenEventHandle(out, zeroHandle));
            codes.put("cuStreamWaitEvent", CuDriver.cuStreamWaitEvent(none, none, 0));
            codes.put("cuLaunchKernel", CuDriver.cuLaunchKernel(none, 1, 1, 1, 1, 1, 1, 0, none, none, none));
            codes.put("cuEventRecord", CuDriver.cuEventRecord(none, none));
            codes.put("cuEventQuery", CuDriver.cuEventQuery(none));
            codes.put("cuMemsetD8Async", CuDriver.cuMemsetD8Async(0, 0, 1, none));
            codes.put("cuMemcpyDtoHAsync_v2", CuDriver.cuMemcpyDtoHAsync_v2(out, 0, 1, none));
            codes.put("cuStreamSynchronize", CuDriver.cuStreamSynchronize(none));
        }
        return codes;
    }
}
