package org.cudaipc4j.simpleipc;

import java.util.List;
import java.util.Map;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.DriverEnvironment;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/**
 * How a simpleIPC process (parent, child, or the fill bench's child) starts the CUDA driver: the driver settings of
 * a process that uses one stream, and the functions it calls first, linked in the background.
 */
public final class DriverStartUp {
    /**
     * Linked first, in this order: what a simpleIPC process calls soonest (device selection, context, memory and
     * IPC, module and stream, the step's calls). The main thread is then least likely to find a function unlinked.
     */
    static final List<String> FIRST = List.of(
            "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute", "cuDeviceCanAccessPeer", "cuDeviceGetUuid_v2",
            "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuCtxEnablePeerAccess", "cuMemAlloc_v2", "cuEventCreate",
            "cuIpcGetMemHandle", "cuIpcGetEventHandle", "cuStreamCreate", "cuModuleLoadData", "cuModuleGetFunction",
            "cuFuncGetAttribute", "cuIpcOpenMemHandle_v2", "cuIpcOpenEventHandle", "cuStreamWaitEvent",
            "cuLaunchKernel", "cuEventRecord", "cuEventQuery", "cuMemsetD8Async", "cuMemcpyDtoHAsync_v2",
            "cuStreamSynchronize");

    private DriverStartUp() {}

    /** Links the driver calls of a simpleIPC process on a background thread ({@link Cuda#prelinkInBackground}). */
    public static Thread prelinkInBackground() {
        return Cuda.prelinkInBackground(FIRST);
    }

    /**
     * One hardware work queue per context: every simpleIPC process uses one stream, and the driver's default of 8
     * makes contexts much slower to create and tear down. Call first thing in the process, before the driver starts.
     * When the variable is already in this process's environment (the user's choice, or set by a parent or the
     * launcher), nothing is changed and no native call is made (the first one of a JVM costs milliseconds to link).
     */
    public static void applySingleStreamDefaults() {
        if (!SimpleIpcSettings.MAX_CONNECTIONS.isSet()) {
            DriverEnvironment.setUnlessSet(SimpleIpcSettings.MAX_CONNECTIONS.name(),
                    SimpleIpcSettings.MAX_CONNECTIONS.get());
        }
    }

    /**
     * The environment that gives child processes the setting of {@link #applySingleStreamDefaults()} (the user's
     * value where this process has one), so that they have nothing to change themselves.
     */
    public static Map<String, String> singleStreamDefaultsForChildren() {
        return Map.of(SimpleIpcSettings.MAX_CONNECTIONS.name(), SimpleIpcSettings.MAX_CONNECTIONS.get());
    }
}
