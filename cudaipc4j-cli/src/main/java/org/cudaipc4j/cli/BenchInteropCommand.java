package org.cudaipc4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.Callable;
import org.cudaipc4j.bench.InteropBench;
import org.cudaipc4j.bench.InteropBench.Case;
import org.cudaipc4j.bench.InteropBench.Plan;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cudaipc4j bench interop CASE FILE}: this process, fresh, as the reader of what another process shares,
 * timed as {@code scripts/interop-bench.sh} times Python's readers beside it. FILE holds the descriptors, one JSON
 * line each ({@code docs/interop-format.md}). The command line is checked here; {@link InteropBench#run} measures and
 * gives one JSON line, printed and also appended to {@code --out}.
 * <ul>
 *   <li>{@code tensor}: torch shares of one storage: the first opened ({@code Descriptors.open} through a
 *       {@code TorchReader}), the others are cached re-opens (the storage open already); with {@code --bandwidth},
 *       the device-to-device copy bandwidth from a share's mapping into local memory against local to local;</li>
 *   <li>{@code state-dict}: every torch share of the file opened, one after the other;</li>
 *   <li>{@code pool}: a memory-pool export with {@code fd_numbers} opened ({@code Descriptors.open}): the fd taken
 *       with {@code pidfd_getfd}, the pool and the pointer imported by {@code MemoryImporter}.</li>
 * </ul>
 * With {@code --driver-only} ({@code tensor} and {@code state-dict}, legacy shares), the reader's driver calls alone,
 * through the binding directly: the floor of {@code interop_bench_py.py driver-reader}, made through FFM. A state
 * dict timed from the reader's exec, as a service opens it, is {@link org.cudaipc4j.bench.ServiceReader}'s: a main
 * of its own, without this command line.
 */
@Command(name = "interop", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Time this fresh process opening what another shares: torch shares (tensor, state-dict) or"
                + " a memory-pool export (pool), from FILE's descriptors (one JSON line each). Prints one JSON line.",
                "scripts/interop-bench.sh runs it beside Python's readers (docs/performance.md)."})
final class BenchInteropCommand implements Callable<Integer> {
    /** The cases, as the command line names them. */
    static final List<String> CASES = java.util.Arrays.stream(Case.values()).filter(c -> c != Case.SCALE)
            .map(Case::label).toList();

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "CASE", description = "tensor, state-dict or pool.")
    String caseName;

    @Parameters(index = "1", paramLabel = "FILE", description = "The descriptors, one JSON line each.")
    Path file;

    @Option(names = "--bandwidth", paramLabel = "FILE",
            description = "tensor: also the copy bandwidth through the mapping of this file's (first) torch share.")
    Path bandwidthFile;

    @Option(names = "--iterations", defaultValue = "20", paramLabel = "N",
            description = "Back-to-back copies per timed batch of --bandwidth. Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--out", paramLabel = "FILE.jsonl", description = "Also append the JSON line to this file.")
    Path out;

    @Option(names = "--driver-only",
            description = "tensor, state-dict (legacy shares): the reader's driver calls alone, through the binding"
                    + " directly (the floor under the reader), instead of the reader.")
    boolean driverOnly;

    /**
     * Checks the command line and reads its files, without touching the driver.
     *
     * @throws ParameterException in one line: an unknown case, an unreadable or refused file, descriptors of the
     *                            wrong kind for the case, {@code --bandwidth} outside {@code tensor}
     */
    Plan plan() {
        Case benchCase = Case.of(caseName);
        if (benchCase == Case.SCALE) {
            throw usage("the scale case runs as a service runs it, without this command line: java"
                    + " --enable-native-access=ALL-UNNAMED -cp cudaipc4j.jar org.cudaipc4j.bench.ServiceReader FILE"
                    + " [STEADY_FILE...] EXEC_EPOCH_US");
        }
        if (benchCase == null) {
            throw usage("unknown case '" + caseName + "' (the cases are " + String.join(", ", CASES) + ")");
        }
        if (iterations < 1) {
            throw usage("--iterations must be at least 1, got " + iterations);
        }
        if (bandwidthFile != null && benchCase != Case.TENSOR) {
            throw usage("--bandwidth goes with the tensor case only");
        }
        if (driverOnly && bandwidthFile != null) {
            throw usage("--bandwidth does not go with --driver-only");
        }
        if (bandwidthFile == null && spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption("--iterations")) {
            throw usage("--iterations goes with --bandwidth (the copies per timed batch of the bandwidth)");
        }
        List<Descriptor> descriptors = read(file);
        for (Descriptor d : descriptors) {
            String why = driverOnly ? InteropBench.unfitForDriverCalls(benchCase, d)
                    : InteropBench.unfit(benchCase, d);
            if (why != null) {
                throw usage(file + ": " + why);
            }
        }
        if (benchCase == Case.POOL && descriptors.size() != 1) {
            throw usage(file + ": the pool case takes one descriptor, got " + descriptors.size());
        }
        Descriptor bw = null;
        if (bandwidthFile != null) {
            bw = read(bandwidthFile).getFirst();
            String why = InteropBench.unfit(Case.TENSOR, bw);
            if (why != null) {
                throw usage(bandwidthFile + ": " + why);
            }
        }
        return new Plan(benchCase, descriptors, bw, iterations, driverOnly);
    }

    private List<Descriptor> read(Path p) {
        try {
            return InteropBench.readDescriptors(p);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), "bench interop: " + message);
    }

    @Override
    public Integer call() {
        Case benchCase = Case.of(caseName);
        // The reader's starts (its leases' watcher) run beside the descriptors' read.
        try (InteropBench.ReaderStart start = benchCase == null ? null
                : InteropBench.ReaderStart.of(benchCase, driverOnly)) {
            Plan plan = plan();
            java.util.OptionalInt waived = Failures.waiveIf(spec.commandLine().getErr(), "bench interop: ",
                    org.cudaipc4j.cuda.Cuda.unavailableReason());
            if (waived.isPresent()) {
                return waived.getAsInt();
            }
            return print(InteropBench.run(plan, start));
        }
    }

    private int print(String line) {
        java.io.PrintWriter o = spec.commandLine().getOut();
        o.println(line);
        o.flush();
        if (out != null) {
            try {
                Files.writeString(out, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("bench interop: cannot append to " + out, e);
            }
        }
        return ExitCodes.OK;
    }
}
