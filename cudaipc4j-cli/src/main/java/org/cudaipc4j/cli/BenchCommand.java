package org.cudaipc4j.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.cudaipc4j.bench.Bench;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.Sizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cudaipc4j bench}: end-to-end phases of simpleIPC runs, per-step latency, barrier latency and fill
 * bandwidth through IPC-opened pointers; medians with min/max over repeats; JSON and PNG charts. The options are
 * checked here; {@link Bench} runs them.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measure simpleIPC end to end (per phase), per-step and barrier latency, and fill bandwidth.",
        subcommands = {BenchChartCommand.class, BenchInteropCommand.class})
final class BenchCommand implements Callable<Integer> {
    /** The class whose main runs the tool, for the bench's runs of it in fresh JVMs. */
    private final String toolMainClass;
    /** Why simpleIPC options would be a usage error, or null when they are fine. */
    private final Function<List<String>, String> runOptionsProblem;

    /**
     * A bench whose simpleIPC runs start {@code toolMainClass} in fresh JVMs, with options that
     * {@code runOptionsProblem} checks before any run starts.
     */
    BenchCommand(String toolMainClass, Function<List<String>, String> runOptionsProblem) {
        this.toolMainClass = toolMainClass;
        this.runOptionsProblem = runOptionsProblem;
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--only", paramLabel = "PART[,PART...]",
            description = "Parts to run, from e2e, steps, barrier, fill, nccl (default: all but nccl, which needs"
                    + " NCCL: send/recv and all-reduce over --sizes, all-reduce on each count of --procs from 2).")
    String onlyText = "e2e,steps,barrier,fill";

    @Option(names = "--repeat", defaultValue = "10", paramLabel = "N",
            description = "End-to-end runs per configuration. Default: ${DEFAULT-VALUE}.")
    int repeat;

    @Option(names = "--backend", defaultValue = "auto", paramLabel = "cuda|host|auto",
            description = "Backend of the simpleIPC runs. Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--run-args", paramLabel = "ARGS", defaultValue = "",
            description = "Extra simpleIPC options for the end-to-end runs, such as \"--ipc vmm\".")
    String runArgs;

    @Option(names = "--procs", paramLabel = "N[,N...]", defaultValue = "1,2,4,8",
            description = "Processes on device 0 for step costs and barrier latency (the barrier skips 1)."
                    + " Default: ${DEFAULT-VALUE}.")
    String procsText;

    // The marginal cost is a difference of two runs: too few steps and it is lost in the noise of the runs' fixed
    // costs (it came out near zero, or negative).
    @Option(names = "--step-count", defaultValue = "2000", paramLabel = "N",
            description = "Steps of the shorter step-cost run of a pair, all processes together (the longer has"
                    + " three times as many). Default: ${DEFAULT-VALUE}.")
    int stepCount;

    @Option(names = "--step-pairs", defaultValue = "3", paramLabel = "N",
            description = "Pairs of step-cost runs per configuration; the median of their marginal costs is"
                    + " reported. Default: ${DEFAULT-VALUE}.")
    int stepPairs;

    @Option(names = "--step-size", defaultValue = "64M", paramLabel = "BYTES",
            description = "Buffer size of the step-cost runs. Default: ${DEFAULT-VALUE}.")
    String stepSizeText;

    @Option(names = "--step-kernels", defaultValue = "vec16,simple", paramLabel = "KERNEL[,KERNEL...]",
            description = "Fill kernels of the step-cost runs on GPUs. Default: ${DEFAULT-VALUE}.")
    String stepKernelsText;

    @Option(names = "--barrier-rounds", defaultValue = "10000", paramLabel = "R",
            description = "Barrier rounds per process count. Default: ${DEFAULT-VALUE}.")
    int barrierRounds;

    @Option(names = "--sizes", paramLabel = "SIZE[,SIZE...]", defaultValue = "16M,64M,256M,1G,4G",
            description = "Buffer sizes for fill bandwidth. Default: ${DEFAULT-VALUE}.")
    String sizesText;

    @Option(names = "--fill-iterations", defaultValue = "20", paramLabel = "N",
            description = "Timed fills per size and method. Default: ${DEFAULT-VALUE}.")
    int fillIterations;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Write bench.json (and, where AWT is available, PNG charts) into DIR.")
    Path out;

    /** The options, checked: every bad value is a usage error before anything runs. */
    private Bench.Settings validate() {
        List<String> only = parts();
        atLeast("--repeat", repeat, 1);
        List<String> runArguments = runArguments();
        List<Integer> procs = processCounts();
        if (only.contains("barrier") && procs.stream().allMatch(p -> p < 2)
                && spec.commandLine().getParseResult().hasMatchedOption("--only")) {
            throw usage("--only barrier needs a process count of 2 or more in --procs (a round trip takes two),"
                    + " got " + procsText);
        }
        atLeast("--step-count", stepCount, 1);
        if (stepCount > Bench.MAX_STEP_COUNT) {
            throw usage("--step-count must be at most " + Bench.MAX_STEP_COUNT + ", got " + stepCount);
        }
        atLeast("--step-pairs", stepPairs, 1);
        long stepSize = byteCount("--step-size", stepSizeText, "--step-size must be at least 1 byte, got '%s'");
        List<String> stepKernels = stepKernels();
        atLeast("--barrier-rounds", barrierRounds, 1);
        List<Long> sizes = new ArrayList<>();
        for (String size : list("--sizes", sizesText)) {
            sizes.add(byteCount("--sizes", size, "--sizes: sizes must be at least 1 byte, got '%s'"));
        }
        atLeast("--fill-iterations", fillIterations, 1);
        if (out != null) {
            makeOut();
        }
        return new Bench.Settings(only, repeat, backend, runArguments, procs, stepCount, stepPairs, stepSize,
                stepKernels, barrierRounds, sizes, fillIterations, out, toolMainClass);
    }

    /** {@code --only}'s parts, each once, in the order given. */
    private List<String> parts() {
        List<String> only = new ArrayList<>();
        for (String part : list("--only", onlyText)) {
            if (!Bench.PARTS.contains(part)) {
                throw usage("--only: unknown part '" + part + "' (the parts are e2e, steps, barrier, fill, nccl)");
            }
            if (!only.contains(part)) {
                only.add(part);
            }
        }
        return only;
    }

    /** The arguments of each run of the tool: {@code --backend} unless auto, then {@code --run-args}, checked. */
    private List<String> runArguments() {
        if (!Set.of("cuda", "host", "auto").contains(backend)) {
            throw usage("--backend must be cuda, host or auto, got '" + backend + "'");
        }
        List<String> runArguments = new ArrayList<>();
        if (!backend.equals("auto")) {
            runArguments.addAll(List.of("--backend", backend));
        }
        if (!runArgs.isBlank()) {
            runArguments.addAll(List.of(runArgs.trim().split("\\s+")));
        }
        String problem = runOptionsProblem.apply(runArguments);
        if (problem != null) {
            throw usage("--run-args: " + problem);
        }
        return runArguments;
    }

    /** {@code --procs}: process counts a control block holds. */
    private List<Integer> processCounts() {
        List<Integer> procs = new ArrayList<>();
        for (String p : list("--procs", procsText)) {
            int count;
            try {
                count = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw usage("--procs takes process counts like 2,4,8; '" + p + "' is not one");
            }
            if (count < 1 || count > org.cudaipc4j.coord.ControlBlock.MAX_PROCESSES) {
                throw usage("--procs: process counts must be between 1 and "
                        + org.cudaipc4j.coord.ControlBlock.MAX_PROCESSES + ", got " + count);
            }
            procs.add(count);
        }
        return procs;
    }

    /**
     * A byte size of {@code option}, at least 1.
     *
     * @param tooSmall the message for a size of 0, with {@code %s} for the text given
     */
    private long byteCount(String option, String text, String tooSmall) {
        long bytes;
        try {
            bytes = Sizes.parseBytes(text);
        } catch (IllegalArgumentException e) {
            throw usage(option + ": " + e.getMessage());
        }
        if (bytes < 1) {
            throw usage(tooSmall.replace("%s", text));
        }
        return bytes;
    }

    /** {@code --step-kernels}: kernel names, each once. */
    private List<String> stepKernels() {
        List<String> stepKernels = new ArrayList<>();
        for (String kernel : list("--step-kernels", stepKernelsText)) {
            String name;
            try {
                name = BuiltinKernels.Fill.parse(kernel).optionName();
            } catch (IllegalArgumentException e) {
                throw usage("--step-kernels: unknown kernel '" + kernel + "' (the kernels are vec16, simple)");
            }
            if (!stepKernels.contains(name)) {
                stepKernels.add(name);
            }
        }
        return stepKernels;
    }

    /** Makes {@code --out} now, so that a folder that cannot be written is refused before the bench runs. */
    private void makeOut() {
        if (out.toString().isEmpty()) {
            throw usage("--out: empty folder name");
        }
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw usage("--out: " + out + " exists and is not a directory");
        }
        List<Path> made = new ArrayList<>();
        for (Path d = out.toAbsolutePath(); d != null && !Files.exists(d); d = d.getParent()) {
            made.addFirst(d);
        }
        try {
            Files.createDirectories(out);
        } catch (java.io.IOException | SecurityException e) {
            throw usage("--out: cannot make the folder " + out + ": " + Failures.fileReason(e));
        }
        for (Path d : made) {
            d.toFile().deleteOnExit(); // at exit, deepest first, each only while empty: a failed bench's go
        }
        if (!Files.isWritable(out)) {
            throw usage("--out: cannot write into " + out);
        }
    }

    private List<String> list(String option, String text) {
        List<String> items = new ArrayList<>();
        for (String item : text.split(",", -1)) {
            if (item.isBlank()) {
                throw usage(option + ": empty item in '" + text + "'");
            }
            items.add(item.trim());
        }
        return items;
    }

    private void atLeast(String option, int value, int least) {
        if (value < least) {
            throw usage(option + " must be at least " + least + ", got " + value);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    @Override
    public Integer call() {
        Bench.Settings settings = validate();
        if (backend.equals("cuda")) {
            // Asked for GPUs where there are none: waived, as the sample and the tool's run exit, in one line.
            java.util.OptionalInt waived = Failures.waiveIf(spec.commandLine().getErr(), "bench --backend cuda: ",
                    org.cudaipc4j.cuda.Cuda.unavailableReason());
            if (waived.isPresent()) {
                return waived.getAsInt();
            }
        }
        try {
            Bench.run(settings);
        } catch (Bench.WaivedException e) {
            java.io.PrintWriter err = spec.commandLine().getErr();
            err.println(Failures.waived("bench: " + e.getMessage()));
            err.flush();
            return ExitCodes.WAIVED;
        }
        return ExitCodes.OK;
    }
}
