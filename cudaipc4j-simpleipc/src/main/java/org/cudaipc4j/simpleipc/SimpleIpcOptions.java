package org.cudaipc4j.simpleipc;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.simpleipc.backend.IpcMode;

/**
 * A validated simpleIPC run configuration.
 *
 * @param bytes size of each process's buffer
 * @param procsPerDevice processes sharing each selected device (the sample: 1)
 * @param devices device ordinals to consider, in order; empty means all
 * @param rounds rounds of the rotation; each round is one step per process
 * @param backend where the workload runs
 * @param simulatedDevices number of devices the host backend simulates
 * @param timeout bound on the run from the parent's start: every wait of the parent ends by it, and the children
 *                still running then are stopped
 * @param json print a machine-readable result on stdout (human output goes to stderr)
 * @param corruptProcess for tests: the process that writes a wrong value in its last step, or -1
 * @param kernel the fill kernel on GPUs: {@code vec16} (16-byte stores) or {@code simple} (the sample's)
 * @param verifyOnDevice count wrong bytes on the device instead of copying the buffer back to the host
 * @param ipc how the buffers travel to the children
 * @param counters order the rotation by counters in the control block (a group that fails frees every waiting
 *                 stream at once) instead of by the sample's interprocess events
 */
public record SimpleIpcOptions(long bytes, int procsPerDevice, List<Integer> devices, int rounds,
        BackendKind backend, int simulatedDevices, Duration timeout, boolean json, int corruptProcess,
        String kernel, boolean verifyOnDevice, IpcMode ipc, boolean counters) {

    /** The sample's buffer size: 64 MiB (DATA_SIZE). */
    public static final long DEFAULT_BYTES = 64L << 20;
    /** The sample's MAX_DEVICES. */
    public static final int MAX_DEVICES = 32;

    public SimpleIpcOptions {
        devices = List.copyOf(devices);
    }

    /** Where the workload runs. */
    public enum BackendKind {
        /** Real GPUs through the CUDA driver. */
        CUDA,
        /** Devices simulated in host shared memory. */
        HOST,
        /** cuda when an IPC-capable GPU exists, else host. */
        AUTO
    }
}
