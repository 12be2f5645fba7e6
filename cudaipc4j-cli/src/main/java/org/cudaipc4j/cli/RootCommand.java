package org.cudaipc4j.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.cudaipc4j.cli.processor.QuickOptions;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.simpleipc.DeviceSelection;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Sync;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Verify;
import org.cudaipc4j.simpleipc.SimpleIpcParent;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.simpleipc.nccl.NcclRun;
import org.cudaipc4j.simpleipc.nccl.NcclRunOptions;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.cudaipc4j.tool.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The tool's default command: the simpleIPC parent. */
@QuickOptions
@Command(name = "cudaipc4j", mixinStandardHelpOptions = true, versionProvider = RootCommand.Version.class,
        sortOptions = false,
        description = {
            "Share GPU memory and CUDA events between processes (CUDA IPC).",
            "",
            "Without a command, runs NVIDIA's simpleIPC sample: one process per GPU (or several with"
                    + " --procs-per-device), each writing into every other process's buffer through IPC handles in"
                    + " turn, then verifying its own buffer.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:failure (a process failed, a verification mismatch, a timeout, output that could not be written)",
            "2:waived: no IPC-capable device, or the --ipc path does not work there (the sample's EXIT_WAIVED);"
                    + " with --transport nccl, no usable NCCL; bench, when nothing it was asked for can run here",
            "64:usage error: a bad option or value, reported in one line"})
final class RootCommand implements Callable<Integer> {
    // Defaults are the options' defaultValue (typed by their converters) or the fields' initial values; picocli
    // shows them in --help, and the parse without picocli applies the same ones.
    @Spec
    CommandSpec spec;

    private static final int DEFAULT_SIMULATED_DEVICES = 2;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "64M", converter = OptionTypes.Size.class,
            description = "Bytes per buffer; suffixes K, M, G, T (powers of 1024). Default: ${DEFAULT-VALUE}.")
    long size;

    @Option(names = "--procs-per-device", paramLabel = "N",
            description = "Processes sharing each device; the rotation covers all of them. Default: ${DEFAULT-VALUE}.")
    int procsPerDevice = 1;

    @Option(names = "--devices", paramLabel = "N[,N...]", converter = OptionTypes.Devices.class,
            description = "Device ordinals to consider, such as 0,2 (default: all).")
    DeviceSelection devices = DeviceSelection.all();

    @Option(names = "--steps", paramLabel = "R",
            description = "Rounds of the rotation (each round is one step per process). Default: ${DEFAULT-VALUE}.")
    int rounds = 1;

    @Option(names = "--backend", paramLabel = "cuda|host|auto", defaultValue = "auto",
            converter = OptionTypes.Backend.class,
            description = "cuda: real GPUs; host: devices simulated in host shared memory; auto: cuda when an"
                    + " IPC-capable GPU exists, else host. Default: ${DEFAULT-VALUE}.")
    BackendKind backend;

    @Option(names = "--sim-devices", paramLabel = "N",
            description = "Devices the host backend simulates (with --backend host, or auto without a GPU)."
                    + " Default: " + DEFAULT_SIMULATED_DEVICES + ".")
    Integer simulatedDevices; // null: not given

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "120s", converter = OptionTypes.Timeout.class,
            description = "Bound on the run, from the parent's start: when it passes, the processes still running"
                    + " are stopped and the run fails (their teardown comes on top); time the job spent stopped (Ctrl-Z)"
                    + " does not count. A whole number with a unit, ms,"
                    + " s, m or h (such as 500ms, 30s, 2m); a number alone is seconds; at most 876000h."
                    + " Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Option(names = "--kernel", paramLabel = "vec16|simple", defaultValue = "vec16",
            converter = OptionTypes.Kernel.class,
            description = "Fill kernel on GPUs: vec16 (16-byte stores) or simple (the sample's, one byte per thread)."
                    + " Default: ${DEFAULT-VALUE}.")
    BuiltinKernels.Fill kernel;

    @Option(names = "--verify", paramLabel = "device|host", defaultValue = "device",
            converter = OptionTypes.VerifyWhere.class,
            description = "Check each buffer by counting wrong bytes on the GPU (device; a wrong buffer is then"
                    + " copied back for the report) or by copying it to pinned host memory (host, as the sample)."
                    + " Default: ${DEFAULT-VALUE}.")
    Verify verify;

    @Option(names = "--ipc", paramLabel = "legacy|vmm|pool", defaultValue = "legacy", converter = OptionTypes.Ipc.class,
            description = "How the buffers travel: legacy (cuMemAlloc memory and 64-byte IPC handles, as the sample),"
                    + " vmm (cuMemCreate memory passed as file descriptors over a private socket) or pool (memory"
                    + " of an exportable memory pool: its file descriptor, then 64 bytes per buffer)."
                    + " Default: ${DEFAULT-VALUE}.")
    IpcMode ipc;

    @Option(names = "--sync", paramLabel = "counters|events", defaultValue = "counters",
            converter = OptionTypes.SyncMode.class,
            description = "How each step waits for the previous writer of its buffer: counters (stream memory"
                    + " operations on counters in the control block; a failed process's siblings are freed at once)"
                    + " or events (the sample's interprocess events). Default: ${DEFAULT-VALUE}.")
    Sync sync;

    @Option(names = "--transport", paramLabel = "ipc|nccl", defaultValue = "ipc",
            converter = OptionTypes.TransportKind.class,
            description = "ipc: the processes share buffers by CUDA IPC on one machine; nccl: one rank per process"
                    + " (started by torchrun, mpirun or srun, or by the tool without one), parts sent by NCCL, across"
                    + " machines too. Default: ${DEFAULT-VALUE}.")
    Transport transport;

    @Option(names = "--json", description = "Print a machine-readable result with per-phase timings on stdout.")
    boolean json;

    @Option(names = "--inject-corruption", paramLabel = "PROCESS", hidden = true,
            description = "Testing: this process writes a wrong value in its last step.")
    int corruptProcess = -1;

    /** {@code --transport}: how the processes exchange their parts. */
    enum Transport {
        /** CUDA IPC between the processes of one machine. */
        IPC,
        /** NCCL between ranks, on one machine or several. */
        NCCL
    }

    /**
     * This command's options by name, each the index of its row in {@link RootCommandQuickOptions}, the table the
     * build writes from this class's {@code @Option} declarations ({@code QuickOptionsProcessor}).
     */
    static Map<String, Integer> quickOptions() {
        Map<String, Integer> table = new HashMap<>();
        for (int option = 0; option < RootCommandQuickOptions.NAMES.length; option++) {
            for (String name : RootCommandQuickOptions.NAMES[option]) {
                table.put(name, option);
            }
        }
        return table;
    }

    /**
     * The command with {@code args} applied when they are only this command's options, each once, as {@code --name
     * value} or {@code --name=value} with a plain value (no leading {@code -} or {@code @}; integers in decimal
     * digits) that its converter takes; null for anything else, which picocli then parses and reports. Building
     * picocli's model of the commands is most of a short run's start-up, which a run with a few options need not
     * pay. Picocli gives the same options for every command line this accepts (a test checks).
     */
    static RootCommand withoutPicocli(String[] args) {
        Map<String, Integer> table = quickOptions();
        RootCommand command = new RootCommand();
        boolean[] seen = new boolean[RootCommandQuickOptions.NAMES.length];
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                int equals = arg.indexOf('=');
                Integer option = table.get(equals < 0 ? arg : arg.substring(0, equals));
                if (option == null || seen[option]) {
                    return null; // a command, help, an argument file, an unknown option, one given twice, ...
                }
                seen[option] = true;
                if (RootCommandQuickOptions.FLAGS[option]) {
                    if (equals >= 0) {
                        return null;
                    }
                    RootCommandQuickOptions.set(command, option, Boolean.TRUE);
                    continue;
                }
                String value = equals >= 0 ? arg.substring(equals + 1) : i + 1 < args.length ? args[++i] : null;
                if (value == null || value.startsWith("-") || value.startsWith("@")) {
                    return null;
                }
                RootCommandQuickOptions.set(command, option, converted(option, value));
            }
            for (int option = 0; option < seen.length; option++) {
                String defaultValue = RootCommandQuickOptions.DEFAULT_VALUES[option];
                if (!seen[option] && defaultValue != null) {
                    RootCommandQuickOptions.set(command, option, converted(option, defaultValue));
                }
            }
        } catch (Exception e) {
            return null; // a value its converter refuses, an integer picocli reads otherwise: picocli reports
        }
        return command;
    }

    /** {@code value} converted for {@code option}: by its converter, else as a plain decimal integer. */
    private static Object converted(int option, String value) throws Exception {
        ITypeConverter<?> converter = RootCommandQuickOptions.converter(option);
        return converter == null ? typed(value) : converter.convert(value);
    }

    /** A value of an option without a converter: a plain decimal integer of at most 9 digits. */
    private static Object typed(String value) {
        if (value.isEmpty() || value.length() > 9) {
            throw new NumberFormatException(value); // picocli decides
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                throw new NumberFormatException(value);
            }
        }
        return Integer.parseInt(value);
    }

    @Override
    public Integer call() {
        if (usesNccl()) {
            return switch (NcclRun.run(ncclOptions(), Main.class.getName(), System.out, System.err)) {
                case PASSED -> ExitCodes.OK;
                case FAILED -> ExitCodes.FAILURE;
                case WAIVED -> ExitCodes.WAIVED;
                case USAGE -> ExitCodes.USAGE;
            };
        }
        return new SimpleIpcParent(options()).run();
    }

    /** True for {@code --transport nccl}. */
    boolean usesNccl() {
        return transport == Transport.NCCL;
    }

    /**
     * The options of {@code --transport nccl}: the shared ones checked as for IPC; those that only mean something
     * for IPC are refused when they differ from their defaults.
     */
    NcclRunOptions ncclOptions() {
        SimpleIpcOptions shared = options();
        List<String> ipcOnly = new java.util.ArrayList<>();
        if (ipc != IpcMode.LEGACY) {
            ipcOnly.add("--ipc");
        }
        if (sync != Sync.COUNTERS) {
            ipcOnly.add("--sync");
        }
        if (backend == BackendKind.HOST) {
            ipcOnly.add("--backend " + backend.optionName());
        }
        if (simulatedDevices != null) {
            ipcOnly.add("--sim-devices");
        }
        if (kernel != BuiltinKernels.Fill.VEC16) {
            ipcOnly.add("--kernel");
        }
        if (verify != Verify.DEVICE) {
            ipcOnly.add("--verify");
        }
        if (json) {
            ipcOnly.add("--json");
        }
        if (corruptProcess >= 0) {
            ipcOnly.add("--inject-corruption");
        }
        if (!ipcOnly.isEmpty()) {
            throw usage(String.join(", ", ipcOnly) + (ipcOnly.size() == 1 ? " is" : " are")
                    + " for --transport ipc, not nccl");
        }
        return new NcclRunOptions(shared.bytes(), shared.rounds(), shared.timeout(), shared.devices(),
                shared.procsPerDevice());
    }

    /**
     * The options, or null when one is refused: a command made by {@link #withoutPicocli} has no picocli model to
     * report with, so the command line goes to picocli, which reports it.
     */
    SimpleIpcOptions optionsOrNull() {
        try {
            return options();
        } catch (RefusedWithoutModel e) {
            return null;
        }
    }

    SimpleIpcOptions options() {
        if (procsPerDevice < 1 || procsPerDevice > ControlBlock.MAX_PROCESSES) {
            throw usage("--procs-per-device must be between 1 and " + ControlBlock.MAX_PROCESSES + ", got "
                    + procsPerDevice);
        }
        if (rounds < 1) {
            throw usage("--steps must be at least 1, got " + rounds);
        }
        int simulated = simulatedDevices == null ? DEFAULT_SIMULATED_DEVICES : simulatedDevices;
        if (simulated < 1 || simulated > SimpleIpcOptions.MAX_DEVICES) {
            throw usage("--sim-devices must be between 1 and " + SimpleIpcOptions.MAX_DEVICES + ", got " + simulated);
        }
        if (corruptProcess < -1) {
            throw usage("--inject-corruption takes a process number from 0, got " + corruptProcess);
        }
        if (backend == BackendKind.CUDA && simulatedDevices != null) {
            throw usage("--sim-devices is for simulated devices; --backend cuda runs on GPUs (choose them with"
                    + " --devices)");
        }
        Duration hostWaitTimeout;
        try {
            hostWaitTimeout = SimpleIpcSettings.WAIT_TIMEOUT.get();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        return new SimpleIpcOptions(size, procsPerDevice, devices.ordinals(), rounds, backend, simulated,
                timeout, json, corruptProcess, kernel, verify, ipc, sync, hostWaitTimeout);
    }

    private RuntimeException usage(String message) {
        if (spec == null) {
            return new RefusedWithoutModel();
        }
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code --version}: the artifact's version, which the build writes into a resource. */
    static final class Version implements picocli.CommandLine.IVersionProvider {
        private static final String RESOURCE = "version.properties";

        @Override
        public String[] getVersion() {
            return new String[] {"cudaipc4j " + of()};
        }

        /** The project's version, such as {@code 0.1.0}; "unknown" in classes that no build filled in. */
        static String of() {
            java.util.Properties p = new java.util.Properties();
            try (java.io.InputStream in = RootCommand.class.getResourceAsStream(RESOURCE)) {
                if (in != null) {
                    p.load(in);
                }
            } catch (java.io.IOException e) {
                return "unknown (cannot read " + RESOURCE + ": " + e.getMessage() + ")";
            }
            String version = p.getProperty("version", "");
            return version.isBlank() || version.startsWith("${") ? "unknown" : version;
        }
    }

    /** A value refused by {@link #options()} in a command that picocli did not build (see {@link #optionsOrNull}). */
    private static final class RefusedWithoutModel extends RuntimeException {
        RefusedWithoutModel() {
            super(null, null, false, false);
        }
    }
}
