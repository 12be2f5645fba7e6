package org.cudaipc4j.simpleipc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/**
 * A validated simpleIPC run configuration: what the command line says, typed once. The parent runs by it, each
 * child receives it (see {@link ChildSettings}) and the benchmarks build it.
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
 * @param kernel the fill kernel on GPUs
 * @param verify where each buffer is checked
 * @param ipc how the buffers travel to the children
 * @param sync how each step waits for the previous writer of its buffer
 * @param hostWaitTimeout the host backend's longest wait on a simulated event or stream
 */
public record SimpleIpcOptions(long bytes, int procsPerDevice, List<Integer> devices, int rounds,
        BackendKind backend, int simulatedDevices, Duration timeout, boolean json, int corruptProcess,
        BuiltinKernels.Fill kernel, Verify verify, IpcMode ipc, Sync sync, Duration hostWaitTimeout) {

    /** The sample's buffer size: 64 MiB (DATA_SIZE). */
    public static final long DEFAULT_BYTES = 64L << 20;
    /** The sample's MAX_DEVICES. */
    public static final int MAX_DEVICES = 32;

    public SimpleIpcOptions {
        devices = List.copyOf(devices);
        java.util.Objects.requireNonNull(backend, "backend");
        java.util.Objects.requireNonNull(timeout, "timeout");
        java.util.Objects.requireNonNull(kernel, "kernel");
        java.util.Objects.requireNonNull(verify, "verify");
        java.util.Objects.requireNonNull(ipc, "ipc");
        java.util.Objects.requireNonNull(sync, "sync");
        java.util.Objects.requireNonNull(hostWaitTimeout, "hostWaitTimeout");
    }

    /**
     * The configuration of the tool run without arguments (a test holds the two equal), the host backend's wait
     * bound as configured.
     *
     * @return 64 MiB buffers, one process per device, all devices, one round, backend auto, two simulated devices,
     *         a 120 s timeout, no JSON, kernel vec16, verified on the device, legacy IPC, counters
     * @throws IllegalArgumentException if the host backend's wait bound is set to something else than a positive
     *                                  number of milliseconds
     */
    public static SimpleIpcOptions defaults() {
        return new SimpleIpcOptions(DEFAULT_BYTES, 1, List.of(), 1, BackendKind.AUTO, 2, Duration.ofSeconds(120),
                false, -1, BuiltinKernels.Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.COUNTERS,
                SimpleIpcSettings.WAIT_TIMEOUT.get());
    }

    /**
     * This configuration as the tool's command-line arguments, every option spelled out, which the tool parses back
     * into an equal configuration. Left out: {@code --sim-devices} with the cuda backend (which refuses it; the
     * parse then gives its default), {@code --devices} for all devices, {@code --inject-corruption} when no process
     * corrupts, {@code --json} when not set; and {@code hostWaitTimeout}, a system property rather than an option.
     *
     * @return the arguments, in the order of the tool's help
     * @throws IllegalStateException if the timeout is not a whole number of milliseconds, which no option gives
     */
    public List<String> toArguments() {
        long timeoutMillis = timeout.toMillis();
        if (!Duration.ofMillis(timeoutMillis).equals(timeout)) {
            throw new IllegalStateException("the timeout " + timeout + " is not a whole number of milliseconds");
        }
        List<String> args = new ArrayList<>(List.of("--size", Long.toString(bytes),
                "--procs-per-device", Integer.toString(procsPerDevice)));
        if (!devices.isEmpty()) {
            args.addAll(List.of("--devices", String.join(",", devices.stream().map(String::valueOf).toList())));
        }
        args.addAll(List.of("--steps", Integer.toString(rounds), "--backend", backend.optionName()));
        if (backend != BackendKind.CUDA) {
            args.addAll(List.of("--sim-devices", Integer.toString(simulatedDevices)));
        }
        args.addAll(List.of("--timeout", timeoutMillis + "ms", "--kernel", kernel.optionName(),
                "--verify", verify.optionName(), "--ipc", ipc.optionName(), "--sync", sync.optionName()));
        if (json) {
            args.add("--json");
        }
        if (corruptProcess >= 0) {
            args.addAll(List.of("--inject-corruption", Integer.toString(corruptProcess)));
        }
        return args;
    }

    /** Whether wrong bytes are counted on the device rather than in a copy in host memory. */
    public boolean verifyOnDevice() {
        return verify == Verify.DEVICE;
    }

    /** Whether the rotation is ordered by counters in the control block rather than by interprocess events. */
    public boolean counters() {
        return sync == Sync.COUNTERS;
    }

    /** Where the workload runs. */
    public enum BackendKind {
        /** Real GPUs through the CUDA driver. */
        CUDA,
        /** Devices simulated in host shared memory. */
        HOST,
        /** cuda when an IPC-capable GPU exists, else host. */
        AUTO;

        /** The name on the command line and in the children's settings: {@code cuda}, {@code host}, {@code auto}. */
        public String optionName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where each buffer is verified ({@code --verify}). */
    public enum Verify {
        /** Wrong bytes counted on the GPU; a wrong buffer is then copied back for the report. */
        DEVICE,
        /** The buffer copied to pinned host memory and checked there, as the sample does. */
        HOST;

        /** The name on the command line: {@code device}, {@code host}. */
        public String optionName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How each step waits for the previous writer of its buffer ({@code --sync}). */
    public enum Sync {
        /**
         * Stream memory operations on counters in the control block: a group that fails frees every waiting
         * stream at once.
         */
        COUNTERS,
        /** The sample's interprocess events. */
        EVENTS;

        /** The name on the command line: {@code counters}, {@code events}. */
        public String optionName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
