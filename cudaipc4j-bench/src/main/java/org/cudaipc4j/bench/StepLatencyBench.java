package org.cudaipc4j.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;

/**
 * The rotation's steady state: per fill kernel and process count on one device, the marginal cost of a step, the
 * kernel's own GPU time beside it, and the host's share of a step.
 *
 * <p>Each configuration runs simpleIPC in pairs, with S and 3S steps in all (rounds = steps / processes). The
 * whole-run figure (the steps phase of the slowest process divided by its steps) includes the warm-up of a fresh
 * JVM; the marginal figure, the difference of a pair's runs divided by the difference of their steps, is the
 * steady-state cost of a step, and the median over the pairs is reported (one pair alone came out anywhere from
 * half to twice the kernel's time on a GPU: a fresh JVM's warm-up does not take the same time in every run). Each
 * step every process fills one buffer, so beside it stands the time of as many kernels launched back to back on
 * one stream (concurrent kernels of several processes may take less). The host's own time per step is what a
 * process spends in its calls (stream wait, launch, record) and in writing its output, without the barrier and
 * the waits for its device, taken the same way (the median over the pairs of the difference of a pair's runs), so
 * a fresh JVM's warm-up does not count; its share is that over the marginal step cost (near 1: the host sets the
 * pace). The per-process breakdowns printed are those of the last pair's longer run.
 *
 * <p>When an MPS control daemon is running, every configuration runs under it and, with the daemon's pipe
 * directory hidden from the processes, without it.
 */
public final class StepLatencyBench {
    /** Where one process's time per step went, in microseconds. */
    public record Breakdown(int process, double streamWaitMicros, double fillLaunchMicros, double recordMicros,
            double barrierMicros, double deviceWaitMicros, double outputMicros) {
        /** The host's own time per step: its calls and its output, not the barrier or the waits for its device. */
        public double ownMicros() {
            return streamWaitMicros + fillLaunchMicros + recordMicros + outputMicros;
        }
    }

    /**
     * One configuration's figures; {@code kernelMicros} is NaN on simulated devices, {@code mps} whether the
     * processes ran under an MPS daemon.
     */
    public record Result(String kernel, boolean mps, int processes, long bytes, long steps, double kernelMicros,
            double microsPerStep, double marginalMicrosPerStep, List<Double> pairMarginals, double hostShare,
            Breakdown process0, Breakdown slowestCalls) {}

    private record Run(long steps, double worstStepsMs, List<Breakdown> breakdowns) {
        /** Microseconds of the process's own time over the whole run. */
        double ownTotalMicros(int process) {
            return breakdowns.get(process).ownMicros() * steps;
        }
    }

    /**
     * What the runs share: backend, step size, steps of the shorter run of a pair, pairs per configuration, the
     * MPS environments to try, and the class whose main runs the tool.
     */
    public record Plan(BackendKind backend, long bytes, int steps, int pairs, List<String> kernels, List<Integer> processCounts,
            Map<String, Double> kernelMicros, Path mpsPipeDirectory, String toolMainClass) {
        int runs() {
            return 2 * pairs * kernels.size() * processCounts.size() * (mpsPipeDirectory == null ? 1 : 2);
        }
    }

    /** The longer run of a pair has this many times the shorter's steps. */
    static final int LONGER = 3;

    /** The kernel name of runs on simulated devices, which have no kernels. */
    public static final String SIMULATED = "simulated";

    private StepLatencyBench() {}

    /**
     * The pipe directory of a running MPS control daemon of the processes' environment, or null: its
     * {@code control} pipe in {@code CUDA_MPS_PIPE_DIRECTORY}, else in the default {@code /tmp/nvidia-mps}.
     */
    static Path runningMpsDaemon(Map<String, String> env) {
        Path dir = Path.of(env.getOrDefault("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps"));
        return Files.exists(dir.resolve("control")) ? dir : null;
    }

    /** Runs every configuration; {@code ranOne} is told after each simpleIPC run. */
    public static List<Result> run(Plan plan, PrintStream out, Runnable ranOne) {
        List<Result> results = new ArrayList<>();
        List<Boolean> mpsModes = plan.mpsPipeDirectory() == null ? List.of(false) : List.of(true, false);
        for (boolean mps : mpsModes) {
            // an empty pipe folder hides the MPS daemon from the runs
            Path hidden = mps || plan.mpsPipeDirectory() == null ? null : BenchTempFiles.emptyDirectory();
            try {
                Map<String, String> env = hidden == null ? Map.of()
                        : Map.of("CUDA_MPS_PIPE_DIRECTORY", hidden.toString());
                for (String kernel : plan.kernels()) {
                    for (int p : plan.processCounts()) {
                        results.add(measure(plan, kernel, mps, p, env, out, ranOne));
                    }
                }
            } finally {
                if (hidden != null) {
                    hidden.toFile().delete();
                }
            }
        }
        return results;
    }

    private static Result measure(Plan plan, String kernel, boolean mps, int p, Map<String, String> env,
            PrintStream out, Runnable ranOne) {
        int rounds = Math.max(1, plan.steps() / p);
        List<Double> marginals = new ArrayList<>();
        List<Double> ownMarginals = new ArrayList<>();
        List<Double> wholeRuns = new ArrayList<>();
        Run longer = null;
        for (int pair = 0; pair < plan.pairs(); pair++) {
            Run shorter = runOnce(plan, kernel, p, rounds, env);
            ranOne.run();
            longer = runOnce(plan, kernel, p, LONGER * rounds, env);
            ranOne.run();
            long extraSteps = longer.steps() - shorter.steps();
            marginals.add((longer.worstStepsMs() - shorter.worstStepsMs()) * 1000 / extraSteps);
            int s = slowestCalls(longer).process();
            ownMarginals.add((longer.ownTotalMicros(s) - shorter.ownTotalMicros(s)) / extraSteps);
            wholeRuns.add(longer.worstStepsMs() * 1000 / longer.steps());
        }
        double marginal = median(marginals);
        double marginalOwn = median(ownMarginals);
        Breakdown slowest = slowestCalls(longer);
        double kernelMicros = plan.kernelMicros().getOrDefault(kernel, Double.NaN);
        Result r = new Result(kernel, mps, p, plan.bytes(), longer.steps(), kernelMicros, median(wholeRuns), marginal,
                List.copyOf(marginals), marginal > 0 ? marginalOwn / marginal : Double.NaN,
                longer.breakdowns().getFirst(), slowest);
        out.println(describe(r));
        if (slowest == r.process0()) {
            out.printf("    process 0, also the slowest in its own calls: %s%n", describe(slowest));
        } else {
            out.printf("    process 0: %s%n    slowest in its own calls, process %d: %s%n", describe(r.process0()),
                    slowest.process(), describe(slowest));
        }
        return r;
    }

    /** The process of a run that spent the most time in its own calls. */
    private static Breakdown slowestCalls(Run run) {
        Breakdown slowest = run.breakdowns().getFirst();
        for (Breakdown b : run.breakdowns()) {
            if (b.ownMicros() > slowest.ownMicros()) {
                slowest = b;
            }
        }
        return slowest;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static String describe(Result r) {
        String gpu = Double.isNaN(r.kernelMicros()) ? ""
                : String.format(" = %.2fx %d kernel%s back to back (%.1f us each)", r.marginalMicrosPerStep()
                        / (r.kernelMicros() * r.processes()), r.processes(), r.processes() == 1 ? "" : "s",
                        r.kernelMicros());
        String share = Double.isNaN(r.hostShare()) ? "n/a (the runs were too close to tell a marginal cost)"
                : String.format("%.0f%% of a step", 100 * r.hostShare());
        String pairs = r.pairMarginals().size() < 2 ? "" : r.pairMarginals().stream()
                .map(m -> String.format("%.1f", m)).collect(Collectors.joining(", ", " (median of pairs ", ")"));
        return String.format("Step cost, %s, %d process%s%s: %.1f us/step marginal%s%s; host's own time %s;"
                        + " %.1f us/step over a whole run of %d steps",
                r.kernel().equals(SIMULATED) ? "simulated devices" : r.kernel() + " kernel", r.processes(),
                r.processes() == 1 ? "" : "es", r.mps() ? " under MPS" : "", r.marginalMicrosPerStep(), pairs, gpu,
                share, r.microsPerStep(), r.steps());
    }

    private static String describe(Breakdown b) {
        return String.format("per step wait %.1f, fill launch %.1f, record %.1f, output %.1f, barrier %.1f,"
                        + " waiting for the device %.1f us", b.streamWaitMicros(), b.fillLaunchMicros(),
                b.recordMicros(), b.outputMicros(), b.barrierMicros(), b.deviceWaitMicros());
    }

    private static Run runOnce(Plan plan, String kernel, int processes, int rounds, Map<String, String> env) {
        SimpleIpcOptions d = SimpleIpcOptions.defaults();
        // Simulated devices have no kernels: their label is not one, and the default stands.
        BuiltinKernels.Fill fill = plan.backend() == BackendKind.CUDA ? BuiltinKernels.Fill.parse(kernel) : d.kernel();
        List<String> args = new SimpleIpcOptions(plan.bytes(), processes, List.of(0), rounds, plan.backend(),
                d.simulatedDevices(), d.timeout(), true, d.corruptProcess(), fill, d.verify(), d.ipc(), d.sync(),
                d.hostWaitTimeout()).toArguments();
        JsonObject json = launchJson(plan.toolMainClass(), args, env);
        long steps = (long) processes * rounds;
        double worst = 0;
        List<Breakdown> breakdowns = new ArrayList<>();
        int index = 0;
        // The slowest process bounds the step rate; each child's steps phase covers all steps.
        for (var c : json.getAsJsonArray("childrenMs")) {
            JsonObject child = c.getAsJsonObject();
            worst = Math.max(worst, child.get("steps").getAsDouble() - child.get("opened").getAsDouble());
            // total.* are microseconds summed over the steps, reported in ms: us per step = ms * 1000 / steps.
            breakdowns.add(new Breakdown(index++, perStep(child, "streamWaitMicros", steps),
                    perStep(child, "fillLaunchMicros", steps), perStep(child, "recordMicros", steps),
                    perStep(child, "barrierMicros", steps), perStep(child, "deviceWaitMicros", steps),
                    perStep(child, "outputMicros", steps)));
        }
        return new Run(steps, worst, breakdowns);
    }

    private static double perStep(JsonObject child, String total, long steps) {
        var value = child.get("total." + total);
        return value == null ? 0 : value.getAsDouble() * 1000 / steps;
    }

    private static JsonObject launchJson(String toolMainClass, List<String> args, Map<String, String> env) {
        ToolLauncher.Outcome o = ToolLauncher.runMain(toolMainClass, args, env).requirePassed(String.join(" ", args));
        return JsonParser.parseString(o.stdout()).getAsJsonObject();
    }
}
