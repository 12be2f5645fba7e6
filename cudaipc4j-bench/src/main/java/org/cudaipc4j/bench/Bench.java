package org.cudaipc4j.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.tool.Sizes;

/**
 * One bench: end-to-end phases of simpleIPC runs, per-step latency, barrier latency, fill bandwidth through
 * IPC-opened pointers and NCCL, each part printing its lines as it ends; the results as one JSON object, written
 * with PNG charts into a folder when one is given.
 */
public final class Bench {
    /** The parts a bench can run. */
    public static final Set<String> PARTS = Set.of("e2e", "steps", "barrier", "fill", "nccl");
    /** The most steps the shorter step-cost run of a pair may have (the longer's are counted in an int). */
    public static final int MAX_STEP_COUNT = Integer.MAX_VALUE / StepLatencyBench.LONGER;

    /** NCCL operations per timing in {@code nccl}: enough that one enqueue's cost is spread thin. */
    private static final int NCCL_OPS = 5;

    /**
     * What to run, checked by the command line: the parts, end-to-end runs per configuration and their backend and
     * extra options, process counts, the step-cost and barrier runs, fill sizes and iterations, the folder for the
     * results (or null), and the main class that runs the tool in a fresh JVM.
     */
    public record Settings(List<String> only, int repeat, String backend, List<String> runArguments,
            List<Integer> procs, int stepCount, int stepPairs, long stepSize, List<String> stepKernels,
            int barrierRounds, List<Long> sizes, int fillIterations, Path out, String toolMainClass) {}

    /** Barrier round-trip latency for one process count, as written to bench.json. */
    record BarrierFigures(int processes, int rounds, long samples, double medianMicros, double p99Micros,
            double minMicros, double maxMicros, double meanMicros, double wallSeconds) {}

    /**
     * Nothing asked for could be measured here: every part needs what this machine lacks (a GPU, NCCL), or a run of
     * the tool waived. The command exits 2, as the tool does.
     */
    public static final class WaivedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WaivedException(String message) {
            super(message);
        }
    }

    private final Settings settings;
    /** Why each part skipped for want of a GPU or NCCL was skipped. */
    private final List<String> skipped = new ArrayList<>();

    private Bench(Settings settings) {
        this.settings = settings;
    }

    /** Runs the parts of {@code settings} in order, printing on standard output. */
    public static void run(Settings settings) {
        new Bench(settings).run();
    }

    private void run() {
        List<String> only = settings.only();
        JsonObject results = new JsonObject();
        Gson gson = new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create();
        results.addProperty("date", Instant.now().toString());
        results.addProperty("java", Runtime.version().toString());
        results.addProperty("backend", settings.backend());
        List<String> runArguments = settings.runArguments();
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
            barrier(results, gson);
        }
        if (only.contains("fill")) {
            fill(results, gson);
        }
        if (only.contains("nccl")) {
            nccl(results, gson);
        }
        if (skipped.size() == only.size()) {
            throw new WaivedException("nothing asked for can be measured here: " + String.join("; ", skipped));
        }
        if (settings.out() != null) {
            writeResults(results, gson);
        }
    }

    /**
     * The step-cost runs: on a GPU each kernel, timed on its own first (and its context released before the
     * runs); on simulated devices one series without kernel times.
     */
    private StepLatencyBench.Plan stepPlan() {
        String backend = settings.backend();
        // Never unusable with cuda: the command waives such a bench before it starts.
        String unusable = backend.equals("host") ? null : cudaUnusable();
        if (backend.equals("host") || unusable != null) {
            return new StepLatencyBench.Plan(BackendKind.HOST, settings.stepSize(), settings.stepCount(), settings.stepPairs(),
                    List.of(StepLatencyBench.SIMULATED), settings.procs(), Map.of(), null, settings.toolMainClass());
        }
        Map<String, Double> kernelMicros = KernelTime.micros(0, settings.stepSize(), settings.stepKernels(), 200);
        kernelMicros.forEach((k, us) -> System.out.printf("Kernel %s on %s: %.2f us per launch (GPU time, back to"
                + " back)%n", k, Sizes.format(settings.stepSize()), us));
        return new StepLatencyBench.Plan(BackendKind.CUDA, settings.stepSize(), settings.stepCount(), settings.stepPairs(),
                settings.stepKernels(), settings.procs(), kernelMicros,
                StepLatencyBench.runningMpsDaemon(mpsEnvironment()), settings.toolMainClass());
    }

    private EndToEndBench.Result endToEnd(String label, List<String> args) {
        EndToEndBench.Result r;
        int repeat = settings.repeat();
        try (ProgressBar bar = progress("e2e: " + label, repeat)) {
            r = EndToEndBench.run(settings.toolMainClass(), args, repeat, bar::stepTo);
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

    private void barrier(JsonObject results, Gson gson) {
        List<BarrierFigures> barrier = new ArrayList<>();
        int rounds = settings.barrierRounds();
        for (int p : settings.procs()) {
            if (p < 2) {
                continue; // a round trip needs two
            }
            BarrierLatency.Result r;
            try (ProgressBar bar = progress("barrier, " + p + " processes", 1)) {
                r = BarrierLatency.measure(p, rounds, Math.max(100, rounds / 10));
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

    private void fill(JsonObject results, Gson gson) {
        String unusable = cudaUnusable();
        if (unusable != null) {
            System.out.println("Fill bandwidth: skipped (" + unusable + ")");
            skipped.add("fill: " + unusable);
            return;
        }
        FillBench.Result r = FillBench.run(0, settings.sizes(), settings.fillIterations(), System.out);
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
            skipped.add("nccl: " + unusable);
            return;
        }
        results.add("nccl", gson.toJsonTree(NcclBenchRun.run(settings.procs(), settings.sizes(), NCCL_OPS,
                settings.repeat(), System.out)));
    }

    /** The one variable of this process's environment that tells where an MPS daemon listens, if set. */
    private static Map<String, String> mpsEnvironment() {
        String pipes = BenchSettings.MPS_PIPE_DIRECTORY.get();
        return pipes == null ? Map.of() : Map.of(BenchSettings.MPS_PIPE_DIRECTORY.name(), pipes);
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
        Path out = settings.out();
        try {
            Files.createDirectories(out);
            Path json = out.resolve("bench.json");
            Files.writeString(json, gson.toJson(results));
            System.out.println("Wrote " + json);
            if (ModuleLayer.boot().findModule("java.desktop").isPresent()) {
                BenchCharts.render(json, out);
            } else {
                System.out.println("No java.desktop module in this runtime: render charts elsewhere with"
                        + " 'cudaipc4j bench chart " + json + " DIR'");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write results to " + out, e);
        }
    }
}
