package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/**
 * The backend and number of children a run will most likely have, told without starting the CUDA driver, so the
 * parent can start its children first and initialise the driver while their JVMs start. A wrong guess costs only
 * time: the parent dismisses the children it started and starts the right number.
 *
 * <p>GPUs are counted in {@code /proc/driver/nvidia/gpus} (one folder per GPU the NVIDIA kernel module drives); no
 * guess is made when {@code CUDA_VISIBLE_DEVICES} reorders or hides devices and no device list was given.
 *
 * @param backend   {@code CUDA} or {@code HOST} (never {@code AUTO}), as the children are told
 * @param processes number of children
 */
record GroupGuess(BackendKind backend, int processes) {
    static final Path NVIDIA_GPUS = Path.of("/proc/driver/nvidia/gpus");

    /** The guess for {@code options}, or null when it cannot be told cheaply or the early start is off. */
    static GroupGuess of(SimpleIpcOptions options) {
        if (SimpleIpcSettings.NO_EARLY_START.get()) {
            return null;
        }
        return of(options, countGpus(NVIDIA_GPUS), SimpleIpcSettings.CUDA_VISIBLE_DEVICES.isSet());
    }

    /**
     * @param gpus                 GPUs the kernel module drives (0 when there is no driver)
     * @param visibleDevicesFilter whether {@code CUDA_VISIBLE_DEVICES} is set
     */
    static GroupGuess of(SimpleIpcOptions options, int gpus, boolean visibleDevicesFilter) {
        BackendKind backend = switch (options.backend()) {
            case HOST -> BackendKind.HOST;
            case CUDA -> BackendKind.CUDA;
            case AUTO -> gpus > 0 ? BackendKind.CUDA : BackendKind.HOST;
        };
        int devices;
        if (!options.devices().isEmpty()) {
            devices = options.devices().size();
        } else if (backend == BackendKind.HOST) {
            devices = options.simulatedDevices();
        } else if (visibleDevicesFilter || gpus == 0) {
            return null;
        } else {
            devices = gpus;
        }
        long processes = (long) Math.min(devices, SimpleIpcOptions.MAX_DEVICES) * options.procsPerDevice();
        if (processes < 1 || processes > ControlBlock.MAX_PROCESSES) {
            return null; // the real selection reports the problem
        }
        return new GroupGuess(backend, (int) processes);
    }

    /** Folders in {@code dir}, or 0 when it cannot be listed. */
    static int countGpus(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return (int) entries.count();
        } catch (IOException | SecurityException e) {
            return 0;
        }
    }

    /** Whether a group started for this guess fits the run as selected. */
    boolean matches(BackendKind actualBackend, int actualProcesses) {
        return backend == actualBackend && processes == actualProcesses;
    }
}
