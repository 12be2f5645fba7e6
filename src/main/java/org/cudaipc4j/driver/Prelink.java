package org.cudaipc4j.driver;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Links every {@link CuDriver} function's downcall handle on a background daemon thread.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A holder the main thread reaches first is simply linked there; class
 * initialisation makes the two safe together. Nothing is called: only handles are created.
 */
public final class Prelink {
    /** System property that turns prelinking off (for measuring what it saves). */
    public static final String DISABLE_PROPERTY = "cudaipc4j.noPrelink";
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

    /**
     * Starts the background linking and returns its thread, or null when {@value #DISABLE_PROPERTY} is true.
     * Does nothing when the driver is not there.
     */
    public static Thread startInBackground() {
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
        });
    }
}
