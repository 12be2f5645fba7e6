package org.cudaipc4j.tool.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.cudaipc4j.simpleipc.ExitCodes;
import org.cudaipc4j.simpleipc.backend.Sizes;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cudaipc4j bench}: end-to-end phases of simpleIPC runs, per-step latency, barrier latency and fill
 * bandwidth through IPC-opened pointers; medians with min/max over repeats; JSON and PNG charts.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measure simpleIPC end to end (per phase), per-step and barrier latency, and fill bandwidth.",
        subcommands = BenchCommand.Chart.class)
public final class BenchCommand implements Callable<Integer> {
    static final Set<String> PARTS = Set.of("e2e", "steps", "barrier", "fill", "nccl");

    /** Barrier round-trip latency for one process count, as written to bench.json. */
    record BarrierFigures(int processes, int rounds, long samples, double medianMicros, double p99Micros,
            double minMicros, double maxMicros, double meanMicros, double wallSeconds) {}

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

    /** The options, checked; every bad value is a usage error before anything runs. */
    private List<String> only;
    private List<Integer> procs;
    private List<Long> sizes;
    private long stepSize;
    private List<String> stepKernels;
    private List<String> runArguments;

    private void validate() {
        only = new ArrayList<>();
        for (String part : list("--only", onlyText)) {
            if (!PARTS.contains(part)) {
                throw usage("--only: unknown part '" + part + "' (the parts are e2e, steps, barrier, fill, nccl)");
            }
            if (!only.contains(part)) {
                only.add(part);
            }
        }
        atLeast("--repeat", repeat, 1);
        if (!Set.of("cuda", "host", "auto").contains(backend)) {
            throw usage("--backend must be cuda, host or auto, got '" + backend + "'");
        }
        runArguments = new ArrayList<>();
        if (!backend.equals("auto")) {
            runArguments.addAll(List.of("--backend", backend));
        }
        if (!runArgs.isBlank()) {
            runArguments.addAll(List.of(runArgs.trim().split("\\s+")));
        }
        String problem = org.cudaipc4j.tool.Main.usageProblem(runArguments);
        if (problem != null) {
            throw usage("--run-args: " + problem);
        }
        procs = new ArrayList<>();
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
        if (only.contains("barrier") && procs.stream().allMatch(p -> p < 2)
                && spec.commandLine().getParseResult().hasMatchedOption("--only")) {
            throw usage("--only barrier needs a process count of 2 or more in --procs (a round trip takes two),"
                    + " got " + procsText);
        }
        atLeast("--step-count", stepCount, 1);
        if (stepCount > Integer.MAX_VALUE / StepLatencyBench.LONGER) {
            // The longer run of a pair has LONGER times the steps, counted in an int.
            throw usage("--step-count must be at most " + Integer.MAX_VALUE / StepLatencyBench.LONGER + ", got "
                    + stepCount);
        }
        atLeast("--step-pairs", stepPairs, 1);
        try {
            stepSize = Sizes.parseBytes(stepSizeText);
        } catch (IllegalArgumentException e) {
            throw usage("--step-size: " + e.getMessage());
        }
        if (stepSize < 1) {
            throw usage("--step-size must be at least 1 byte, got '" + stepSizeText + "'");
        }
        stepKernels = new ArrayList<>();
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
        atLeast("--barrier-rounds", barrierRounds, 1);
        sizes = new ArrayList<>();
        for (String size : list("--sizes", sizesText)) {
            long bytes;
            try {
                bytes = Sizes.parseBytes(size);
            } catch (IllegalArgumentException e) {
                throw usage("--sizes: " + e.getMessage());
            }
            if (bytes < 1) {
                throw usage("--sizes: sizes must be at least 1 byte, got '" + size + "'");
            }
            sizes.add(bytes);
        }
        atLeast("--fill-iterations", fillIterations, 1);
        if (out != null && Files.exists(out) && !Files.isDirectory(out)) {
            throw usage("--out: " + out + " exists and is not a directory");
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
        validate();
        if (backend.equals("cuda")) {
            // Asked for GPUs where there are none: waived, as the sample and the tool's run exit, in one line.
            String unusable = cudaUnusable();
            if (unusable != null) {
                java.io.PrintWriter err = spec.commandLine().getErr();
                err.println("cudaipc4j: bench --backend cuda: " + unusable);
                err.flush();
                return ExitCodes.WAIVED;
            }
        }
        JsonObject results = new JsonObject();
        Gson gson = new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create();
        results.addProperty("date", Instant.now().toString());
        results.addProperty("java", Runtime.version().toString());
        results.addProperty("backend", backend);
        if (only.contains("e2e")) {
            List<EndToEndBench.Result> e2e = new ArrayList<>();
            // The default run is timed exactly as users type it: no arguments at all.
            e2e.add(endToEnd(runArguments.isEmpty() ? "default run (no arguments)" : String.join(" ", runArguments),
                    runArguments));
            results.add("endToEnd", gson.toJsonTree(e2e));
        }
        if (only.contains("steps")) {
            StepLatencyBench.Plan plan = stepPlan();
            try (ProgressBar bar = progress("steps", plan.runs())) {
                results.add("stepLatency", gson.toJsonTree(StepLatencyBench.run(plan, System.out, bar::step)));
            }
        }
        if (only.contains("barrier")) {
            List<BarrierFigures> barrier = new ArrayList<>();
            for (int p : procs) {
                if (p < 2) {
                    continue; // a round trip needs two
                }
                BarrierLatency.Result r;
                try (ProgressBar bar = progress("barrier, " + p + " processes", 1)) {
                    r = BarrierLatency.measure(p, barrierRounds, Math.max(100, barrierRounds / 10));
                    bar.step();
                }
                System.out.println("Barrier round trip: " + r.describe());
                barrier.add(new BarrierFigures(r.processes(), r.rounds(), r.samples(), r.medianMicros(),
                        r.p99Micros(), r.minMicros(), r.maxMicros(), r.meanMicros(), r.wall().toMillis() / 1e3));
            }
            if (barrier.isEmpty()) {
                System.out.println("Barrier round trip: skipped (--procs has no count of 2 or more)");
            }
            results.add("barrierLatency", gson.toJsonTree(barrier));
        }
        if (only.contains("fill")) {
            fill(results, gson);
        }
        if (only.contains("nccl")) {
            nccl(results, gson);
        }
        if (out != null) {
            writeResults(results, gson);
        }
        return ExitCodes.OK;
    }

    /**
     * The step-cost runs: on a GPU each kernel, timed on its own first (and its context released before the
     * runs); on simulated devices one series without kernel times.
     */
    private StepLatencyBench.Plan stepPlan() {
        String unusable = backend.equals("host") ? null : cudaUnusable(); // never set with cuda: call() waived
        if (backend.equals("host") || unusable != null) {
            return new StepLatencyBench.Plan("host", stepSize, stepCount, stepPairs,
                    List.of(StepLatencyBench.SIMULATED), procs, Map.of(), null);
        }
        Map<String, Double> kernelMicros = KernelTime.micros(0, stepSize, stepKernels, 200);
        kernelMicros.forEach((k, us) -> System.out.printf("Kernel %s on %s: %.2f us per launch (GPU time, back to"
                + " back)%n", k, Sizes.format(stepSize), us));
        return new StepLatencyBench.Plan("cuda", stepSize, stepCount, stepPairs, stepKernels, procs, kernelMicros,
                StepLatencyBench.runningMpsDaemon(mpsEnvironment()));
    }

    private EndToEndBench.Result endToEnd(String label, List<String> args) {
        EndToEndBench.Result r;
        try (ProgressBar bar = progress("e2e: " + label, repeat)) {
            r = EndToEndBench.run(args, repeat, bar::stepTo);
        }
        System.out.printf("End to end, %s, %d runs: wall ms %s%n", label, repeat, r.wallMs());
        System.out.println("  Critical path of the median run (ms):");
        r.medianRunCriticalPathMs().forEach((k, v) -> System.out.printf("    %-36s %8.2f%n", k, v));
        System.out.println("  Critical-path phases over all runs (the path varies, so these do not add up):");
        r.criticalPathMs().forEach((k, v) -> System.out.printf("    %-36s %s%n", k, v));
        System.out.println("  Each phase on its own (parent and child overlap):");
        r.phaseMs().forEach((k, v) -> System.out.printf("    %-36s %s%n", k, v));
        return r;
    }

    private void fill(JsonObject results, Gson gson) {
        String unusable = cudaUnusable();
        if (unusable != null) {
            System.out.println("Fill bandwidth: skipped (" + unusable + ")");
            return;
        }
        FillBench.Result r = FillBench.run(0, sizes, fillIterations, System.out);
        JsonObject fill = gson.toJsonTree(r).getAsJsonObject();
        fill.add("gbPerSecond", gson.toJsonTree(r.series()));
        results.add("fill", fill);
    }

    /** NCCL send/recv and all-reduce between ranks on this machine; skipped with the reason without NCCL or a GPU. */
    private void nccl(JsonObject results, Gson gson) {
        String unusable = cudaUnusable();
        if (unusable == null) {
            try {
                org.cudaipc4j.nccl.Nccl.load();
            } catch (org.cudaipc4j.nccl.NcclUnavailableException e) {
                unusable = e.getMessage();
            }
        }
        if (unusable != null) {
            System.out.println("NCCL: skipped (" + unusable + ")");
            return;
        }
        results.add("nccl", gson.toJsonTree(org.cudaipc4j.tool.nccl.NcclBenchRun.run(procs, sizes, NCCL_OPS,
                repeat, System.out)));
    }

    /** NCCL operations per timing in {@code --only nccl}: enough that one enqueue's cost is spread thin. */
    private static final int NCCL_OPS = 5;

    /** The one variable of this process's environment that tells where an MPS daemon listens, if set. */
    private static Map<String, String> mpsEnvironment() {
        String pipes = System.getenv("CUDA_MPS_PIPE_DIRECTORY");
        return pipes == null ? Map.of() : Map.of("CUDA_MPS_PIPE_DIRECTORY", pipes);
    }

    /** Why CUDA cannot be used here, or null when a device is there. */
    private static String cudaUnusable() {
        return org.cudaipc4j.cuda.Cuda.unavailableReason().orElse(null);
    }

    /**
     * A progress bar on stderr while a part runs, drawn only on a terminal: in files and pipes its frames would be
     * noise, and each part prints its own result lines when it ends.
     */
    static ProgressBar progress(String task, long max) {
        ProgressBarBuilder builder = new ProgressBarBuilder().setTaskName(task).setInitialMax(max)
                .setStyle(ProgressBarStyle.ASCII);
        if (onTerminal()) {
            // Straight to the descriptor: System.err holds text back until a newline (LineAtomicOutput), and a
            // frame has none. Each frame ends back at the start of its line, so a result line printed meanwhile
            // writes over the bar rather than after it.
            java.io.PrintStream terminal = new java.io.PrintStream(
                    new java.io.FileOutputStream(java.io.FileDescriptor.err), true);
            builder.setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(terminal) {
                @Override
                public void accept(String rendered) {
                    int width = getMaxRenderedLength();
                    terminal.print("\r" + (rendered.length() > width ? rendered.substring(0, width) : rendered)
                            + "\r");
                }
            });
        } else {
            builder.setConsumer(new me.tongfei.progressbar.ProgressBarConsumer() {
                @Override
                public void accept(String rendered) {}

                @Override
                public int getMaxRenderedLength() {
                    return 80;
                }

                @Override
                public void close() {}
            });
        }
        return builder.build();
    }

    private static boolean onTerminal() {
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    private void writeResults(JsonObject results, Gson gson) {
        try {
            Files.createDirectories(out);
            Path json = out.resolve("bench.json");
            Files.writeString(json, gson.toJson(results));
            System.out.println("Wrote " + json);
            if (ModuleLayer.boot().findModule("java.desktop").isPresent()) {
                Chart.render(json, out);
            } else {
                System.out.println("No java.desktop module in this runtime: render charts elsewhere with"
                        + " 'cudaipc4j bench chart " + json + " DIR'");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write results to " + out, e);
        }
    }

    /**
     * Chart series of the step results: per kernel (and MPS mode) the marginal step cost, and per kernel its
     * back-to-back time times the process count (one kernel per process and step).
     */
    static Map<String, List<double[]>> stepSeries(com.google.gson.JsonArray steps) {
        Map<String, List<double[]>> measured = new LinkedHashMap<>();
        Map<String, List<double[]>> backToBack = new LinkedHashMap<>();
        for (var e : steps) {
            JsonObject r = e.getAsJsonObject();
            // Results of earlier builds name no kernel: they ran 4 KiB buffers with the default kernel.
            String kernel = r.has("kernel") ? r.get("kernel").getAsString() + " kernel" : "4 KiB buffers";
            int processes = r.get("processes").getAsInt();
            boolean mps = r.has("mps") && r.get("mps").getAsBoolean();
            measured.computeIfAbsent(kernel + ", step" + (mps ? " under MPS" : ""), k -> new ArrayList<>())
                    .add(new double[] {processes, r.get("marginalMicrosPerStep").getAsDouble()});
            double kernelMicros = r.has("kernelMicros") ? r.get("kernelMicros").getAsDouble() : Double.NaN;
            if (!Double.isNaN(kernelMicros) && !mps) {
                backToBack.computeIfAbsent(kernel + ", back to back x processes", k -> new ArrayList<>())
                        .add(new double[] {processes, kernelMicros * processes});
            }
        }
        measured.putAll(backToBack);
        // A log axis cannot show a marginal cost at or below zero (two noisy runs): leave such points out.
        measured.values().forEach(points -> points.removeIf(p -> p[1] <= 0));
        return measured;
    }

    /** {@code cudaipc4j bench chart IN.json OUTDIR}: PNG charts from a bench.json written elsewhere. */
    @Command(name = "chart", mixinStandardHelpOptions = true,
            description = "Render PNG charts from a bench.json (such as one written on a GPU machine).")
    static final class Chart implements Callable<Integer> {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "IN.json")
        Path in;

        @picocli.CommandLine.Parameters(index = "1", paramLabel = "OUTDIR")
        Path outDir;

        @Override
        public Integer call() {
            JsonObject results = read(in);
            try {
                Files.createDirectories(outDir);
            } catch (IOException e) {
                throw new UncheckedIOException("bench chart: cannot make the folder '" + outDir + "'", e);
            }
            render(results, in, outDir);
            return ExitCodes.OK;
        }

        /** The parts of a bench.json that charts are drawn from. */
        private static final List<String> CHARTED = List.of("endToEnd", "stepLatency", "fill");

        /**
         * The results in {@code json}, or a failure in one line naming the file: unreadable, not JSON, or JSON that
         * holds none of a bench's results (such as a run's {@code --json} report).
         */
        static JsonObject read(Path json) {
            String text;
            try {
                text = Files.readString(json);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new IllegalArgumentException("bench chart: '" + json + "' does not exist");
            } catch (IOException e) {
                throw new UncheckedIOException("bench chart: cannot read '" + json + "'", e);
            }
            com.google.gson.JsonElement parsed;
            try {
                parsed = com.google.gson.JsonParser.parseString(text);
            } catch (com.google.gson.JsonParseException e) {
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                // The parser's first line, without its JSONPath ("path $.a"): the line and column say where.
                String why = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage().lines()
                        .findFirst().orElse("").replaceFirst("\\s+path \\$\\S*$", "");
                throw new IllegalArgumentException("bench chart: '" + json + "' is not valid JSON (" + why + ")");
            }
            if (!parsed.isJsonObject() || CHARTED.stream().noneMatch(parsed.getAsJsonObject()::has)) {
                boolean runReport = parsed.isJsonObject() && parsed.getAsJsonObject().has("tool");
                throw new IllegalArgumentException("bench chart: '" + json + "' holds no bench results ("
                        + String.join(", ", CHARTED) + ")" + (runReport ? "; it is a run's report" : "")
                        + ": charts are drawn from the bench.json that 'cudaipc4j bench --out DIR' writes");
            }
            return parsed.getAsJsonObject();
        }

        static void render(Path json, Path dir) {
            render(read(json), json, dir);
        }

        private static void render(JsonObject results, Path json, Path dir) {
            for (String part : CHARTED) {
                if (!results.has(part)) {
                    continue;
                }
                try {
                    draw(part, results, dir);
                } catch (IllegalStateException | ClassCastException | NullPointerException
                         | UnsupportedOperationException | NumberFormatException e) {
                    // Gson's accessors on a part of another shape.
                    throw new IllegalArgumentException("bench chart: '" + json + "' has bench results of an unknown"
                            + " shape in its " + part + " part");
                }
            }
        }

        private static void draw(String part, JsonObject results, Path dir) {
            if (part.equals("endToEnd")) {
                Map<String, Map<String, Double>> bars = new LinkedHashMap<>();
                for (var e : results.getAsJsonArray("endToEnd")) {
                    JsonObject r = e.getAsJsonObject();
                    String label = String.join(" ", new Gson().fromJson(r.get("args"), String[].class));
                    Map<String, Double> phases = new LinkedHashMap<>();
                    if (r.has("medianRunCriticalPathMs")) {
                        for (var p : r.getAsJsonObject("medianRunCriticalPathMs").entrySet()) {
                            phases.put(p.getKey(), p.getValue().getAsDouble());
                        }
                    } else { // written by an older build: per-phase medians
                        for (var p : r.getAsJsonObject("criticalPathMs").entrySet()) {
                            phases.put(p.getKey(), p.getValue().getAsJsonObject().get("median").getAsDouble());
                        }
                    }
                    bars.put(label.isEmpty() ? "default" : label, phases);
                }
                Path png = dir.resolve("bench-phases.png");
                ChartWriter.phases(bars, "simpleIPC end to end: critical path of the median run", png);
                System.out.println("Wrote " + png);
            }
            if (part.equals("stepLatency")) {
                Path png = dir.resolve("bench-steps.png");
                ChartWriter.stepCosts(stepSeries(results.getAsJsonArray("stepLatency")),
                        "simpleIPC rotation: marginal cost of a step", png);
                System.out.println("Wrote " + png);
            }
            if (part.equals("fill")) {
                Map<String, List<double[]>> series = new LinkedHashMap<>();
                for (var s : results.getAsJsonObject("fill").getAsJsonObject("gbPerSecond").entrySet()) {
                    List<double[]> points = new ArrayList<>();
                    for (var p : s.getValue().getAsJsonArray()) {
                        points.add(new double[] {p.getAsJsonArray().get(0).getAsDouble(),
                                p.getAsJsonArray().get(1).getAsDouble()});
                    }
                    series.put(s.getKey(), points);
                }
                Path png = dir.resolve("bench-bandwidth.png");
                ChartWriter.bandwidth(series, "Device fill bandwidth", png);
                System.out.println("Wrote " + png);
            }
        }
    }
}
