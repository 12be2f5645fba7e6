package org.cudaipc4j.cli;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.simpleipc.ExitCodes;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcParent;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.backend.Sizes;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.simpleipc.nccl.NcclRun;
import org.cudaipc4j.simpleipc.nccl.NcclRunOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The tool's default command: the simpleIPC parent. */
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
            "1:failure (a process failed, a verification mismatch, a timeout)",
            "2:waived: no IPC-capable device (the sample's EXIT_WAIVED)",
            "64:usage error"})
final class RootCommand implements Callable<Integer> {
    // Defaults are the fields' initial values (picocli shows them in --help), so a run without arguments, which
    // skips picocli, gets the same ones.
    @Spec
    CommandSpec spec;

    private static final int DEFAULT_SIMULATED_DEVICES = 2;

    @Option(names = "--size", paramLabel = "BYTES",
            description = "Bytes per buffer; suffixes K, M, G (powers of 1024). Default: ${DEFAULT-VALUE}.")
    String size = "64M";

    @Option(names = "--procs-per-device", paramLabel = "N",
            description = "Processes sharing each device; the rotation covers all of them. Default: ${DEFAULT-VALUE}.")
    int procsPerDevice = 1;

    @Option(names = "--devices", paramLabel = "N[,N...]",
            description = "Device ordinals to consider, such as 0,2 (default: all).")
    String devices; // null: not given, all

    @Option(names = "--steps", paramLabel = "R",
            description = "Rounds of the rotation (each round is one step per process). Default: ${DEFAULT-VALUE}.")
    int rounds = 1;

    @Option(names = "--backend", paramLabel = "cuda|host|auto",
            description = "cuda: real GPUs; host: devices simulated in host shared memory; auto: cuda when an"
                    + " IPC-capable GPU exists, else host. Default: ${DEFAULT-VALUE}.")
    String backend = "auto";

    @Option(names = "--sim-devices", paramLabel = "N",
            description = "Devices the host backend simulates (with --backend host, or auto without a GPU)."
                    + " Default: " + DEFAULT_SIMULATED_DEVICES + ".")
    Integer simulatedDevices; // null: not given

    @Option(names = "--timeout", paramLabel = "DURATION",
            description = "Bound on the run, from the parent's start: when it passes, the processes still running"
                    + " are stopped and the run fails (their teardown comes on top). A whole number with a unit, ms,"
                    + " s, m or h (such as 500ms, 30s, 2m); a number alone is seconds. Default: ${DEFAULT-VALUE}.")
    String timeout = "120s";

    @Option(names = "--kernel", paramLabel = "vec16|simple",
            description = "Fill kernel on GPUs: vec16 (16-byte stores) or simple (the sample's, one byte per thread)."
                    + " Default: ${DEFAULT-VALUE}.")
    String kernel = "vec16";

    @Option(names = "--verify", paramLabel = "device|host",
            description = "Check each buffer by counting wrong bytes on the GPU (device; a wrong buffer is then"
                    + " copied back for the report) or by copying it to pinned host memory (host, as the sample)."
                    + " Default: ${DEFAULT-VALUE}.")
    String verify = "device";

    @Option(names = "--ipc", paramLabel = "legacy|vmm|pool",
            description = "How the buffers travel: legacy (cuMemAlloc memory and 64-byte IPC handles, as the sample),"
                    + " vmm (cuMemCreate memory passed as file descriptors over a private socket) or pool (memory"
                    + " of an exportable memory pool: its file descriptor, then 64 bytes per buffer)."
                    + " Default: ${DEFAULT-VALUE}.")
    String ipc = "legacy";

    @Option(names = "--sync", paramLabel = "counters|events",
            description = "How each step waits for the previous writer of its buffer: counters (stream memory"
                    + " operations on counters in the control block; a failed process's siblings are freed at once)"
                    + " or events (the sample's interprocess events). Default: ${DEFAULT-VALUE}.")
    String sync = "counters";

    @Option(names = "--transport", paramLabel = "ipc|nccl",
            description = "ipc: the processes share buffers by CUDA IPC on one machine; nccl: one rank per process"
                    + " (started by torchrun, mpirun or srun, or by the tool without one), parts sent by NCCL, across"
                    + " machines too. Default: ${DEFAULT-VALUE}.")
    String transport = "ipc";

    @Option(names = "--json", description = "Print a machine-readable result with per-phase timings on stdout.")
    boolean json;

    @Option(names = "--inject-corruption", paramLabel = "PROCESS", hidden = true,
            description = "Testing: this process writes a wrong value in its last step.")
    int corruptProcess = -1;

    /**
     * The value options by name, for {@link #withoutPicocli}. Each must be an {@code @Option} above, and each of
     * those is here (a test checks both ways).
     */
    private static final Map<String, BiConsumer<RootCommand, String>> VALUE_OPTIONS = Map.ofEntries(
            Map.entry("--size", (c, v) -> c.size = v),
            Map.entry("--procs-per-device", (c, v) -> c.procsPerDevice = plainInt(v)),
            Map.entry("--devices", (c, v) -> c.devices = v),
            Map.entry("--steps", (c, v) -> c.rounds = plainInt(v)),
            Map.entry("--backend", (c, v) -> c.backend = v),
            Map.entry("--sim-devices", (c, v) -> c.simulatedDevices = plainInt(v)),
            Map.entry("--timeout", (c, v) -> c.timeout = v),
            Map.entry("--kernel", (c, v) -> c.kernel = v),
            Map.entry("--verify", (c, v) -> c.verify = v),
            Map.entry("--ipc", (c, v) -> c.ipc = v),
            Map.entry("--sync", (c, v) -> c.sync = v),
            Map.entry("--transport", (c, v) -> c.transport = v),
            Map.entry("--inject-corruption", (c, v) -> c.corruptProcess = plainInt(v)));
    /** The names of {@link #VALUE_OPTIONS}. */
    static Set<String> valueOptionNames() {
        return VALUE_OPTIONS.keySet();
    }

    /** The flag options, for {@link #withoutPicocli}. */
    static final Set<String> FLAG_OPTIONS = Set.of("--json");

    /**
     * The command with {@code args} applied when they are only this command's options, each once, as {@code --name
     * value} or {@code --name=value} with a plain value (no leading {@code -} or {@code @}; integers in decimal
     * digits); null for anything else, which picocli then parses and reports. Building picocli's model of the
     * commands is most of a short run's start-up (about 120 ms), which a run with a few options need not pay.
     * Picocli gives the same options for every command line this accepts (a test checks).
     */
    static RootCommand withoutPicocli(String[] args) {
        RootCommand command = new RootCommand();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            int equals = arg.indexOf('=');
            String name = equals < 0 ? arg : arg.substring(0, equals);
            if (!seen.add(name)) {
                return null; // given twice: picocli says so
            }
            if (FLAG_OPTIONS.contains(name) && equals < 0) {
                command.json = true;
                continue;
            }
            BiConsumer<RootCommand, String> setter = VALUE_OPTIONS.get(name);
            if (setter == null) {
                return null; // a command, help, a short option, an argument file, an unknown option, ...
            }
            String value = equals >= 0 ? arg.substring(equals + 1) : i + 1 < args.length ? args[++i] : null;
            if (value == null || value.startsWith("-") || value.startsWith("@")) {
                return null;
            }
            try {
                setter.accept(command, value);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return command;
    }

    /** A non-negative decimal integer of at most 9 digits; otherwise NumberFormatException (picocli decides). */
    private static int plainInt(String value) {
        if (value.isEmpty() || value.length() > 9 || !value.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new NumberFormatException(value);
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

    /** True for {@code --transport nccl}. @throws ParameterException for a transport that does not exist */
    boolean usesNccl() {
        return switch (transport.toLowerCase(Locale.ROOT)) {
            case "ipc" -> false;
            case "nccl" -> true;
            default -> throw usage("--transport must be ipc or nccl, got '" + transport + "'");
        };
    }

    /**
     * The options of {@code --transport nccl}: the shared ones checked as for IPC; those that only mean something
     * for IPC are refused when they differ from their defaults.
     */
    NcclRunOptions ncclOptions() {
        SimpleIpcOptions shared = options();
        List<String> ipcOnly = new java.util.ArrayList<>();
        if (!ipc.equalsIgnoreCase("legacy")) {
            ipcOnly.add("--ipc");
        }
        if (!sync.equalsIgnoreCase("counters")) {
            ipcOnly.add("--sync");
        }
        if (!backend.equalsIgnoreCase("auto") && !backend.equalsIgnoreCase("cuda")) {
            ipcOnly.add("--backend " + backend);
        }
        if (simulatedDevices != null) {
            ipcOnly.add("--sim-devices");
        }
        if (!kernel.equalsIgnoreCase("vec16")) {
            ipcOnly.add("--kernel");
        }
        if (!verify.equalsIgnoreCase("device")) {
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
        long bytes = parse("--size", () -> Sizes.parseBytes(size));
        if (bytes < 1) {
            throw usage("--size must be at least 1 byte, got '" + size + "'");
        }
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
        Duration limit = parse("--timeout", () -> Sizes.parseDuration(timeout));
        if (limit.isZero()) {
            throw usage("--timeout must be positive, got '" + timeout + "'");
        }
        BackendKind kind = switch (backend.toLowerCase(Locale.ROOT)) {
            case "cuda" -> BackendKind.CUDA;
            case "host" -> BackendKind.HOST;
            case "auto" -> BackendKind.AUTO;
            default -> throw usage("--backend must be cuda, host or auto, got '" + backend + "'");
        };
        if (kind == BackendKind.CUDA && simulatedDevices != null) {
            throw usage("--sim-devices is for simulated devices; --backend cuda runs on GPUs (choose them with"
                    + " --devices)");
        }
        String fillKernel;
        try {
            fillKernel = BuiltinKernels.Fill.parse(kernel).optionName();
        } catch (IllegalArgumentException e) {
            throw usage("--kernel " + e.getMessage());
        }
        String verifyWhere = verify.toLowerCase(Locale.ROOT);
        if (!verifyWhere.equals("host") && !verifyWhere.equals("device")) {
            throw usage("--verify must be host or device, got '" + verify + "'");
        }
        IpcMode ipcMode = parse("--ipc", () -> IpcMode.parse(ipc));
        String syncMode = sync.toLowerCase(Locale.ROOT);
        if (!syncMode.equals("counters") && !syncMode.equals("events")) {
            throw usage("--sync must be counters or events, got '" + sync + "'");
        }
        LinkedHashSet<Integer> ordinals = new LinkedHashSet<>();
        if (devices != null && devices.isBlank()) {
            throw usage("--devices: no device given (leave the option out to consider all)");
        }
        for (String d : devices == null ? new String[0] : devices.split(",", -1)) {
            int ordinal;
            try {
                ordinal = Integer.parseInt(d.trim());
            } catch (NumberFormatException e) {
                throw usage("--devices takes device ordinals like 0,1; '" + d + "' is not one");
            }
            if (ordinal < 0) {
                throw usage("--devices: ordinal " + ordinal + " is negative");
            }
            if (!ordinals.add(ordinal)) {
                throw usage("--devices: device " + ordinal + " is listed twice");
            }
        }
        return new SimpleIpcOptions(bytes, procsPerDevice, List.copyOf(ordinals), rounds, kind, simulated,
                limit, json, corruptProcess, fillKernel, verifyWhere.equals("device"), ipcMode,
                syncMode.equals("counters"));
    }

    private <T> T parse(String option, java.util.function.Supplier<T> parser) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw usage(option + ": " + e.getMessage());
        }
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
