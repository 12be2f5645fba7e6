package org.cudaipc4j.tool.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-step overhead of the rotation (stream wait + kernel launch + event record + barrier) with P processes on
 * one device: simpleIPC runs with tiny buffers and many rounds.
 *
 * <p>Each process count runs twice, with R and 2R rounds. The whole-run figure (steps phase of the slowest process
 * divided by its steps) includes the warm-up of a fresh JVM (interpreted code, first calls); the marginal figure,
 * the difference of the two runs divided by the difference of their steps, is the steady-state cost of a step.
 * The breakdown is per step of the run with 2R rounds, for process 0 and for the process whose own calls
 * (wait + launch + record) took longest.
 */
final class StepLatencyBench {
    record Breakdown(int process, double streamWaitMicros, double fillLaunchMicros, double recordMicros,
            double barrierMicros) {}

    record Result(int processes, long steps, double microsPerStep, double marginalMicrosPerStep,
            Breakdown process0, Breakdown slowestCalls) {}

    private record Run(long steps, double worstStepsMs, List<Breakdown> breakdowns) {}

    private StepLatencyBench() {}

    /** Runs every process count; {@code ranOne} is told after each of the 2 runs per count. */
    static List<Result> run(String backend, List<Integer> processCounts, int rounds, PrintStream out,
            Runnable ranOne) {
        List<Result> results = new ArrayList<>();
        for (int p : processCounts) {
            Run shorter = runOnce(backend, p, rounds);
            ranOne.run();
            Run longer = runOnce(backend, p, 2 * rounds);
            ranOne.run();
            double marginal = (longer.worstStepsMs() - shorter.worstStepsMs()) * 1000
                    / (longer.steps() - shorter.steps());
            Breakdown slowest = longer.breakdowns().getFirst();
            for (Breakdown b : longer.breakdowns()) {
                if (ownCalls(b) > ownCalls(slowest)) {
                    slowest = b;
                }
            }
            Result r = new Result(p, longer.steps(), longer.worstStepsMs() * 1000 / longer.steps(), marginal,
                    longer.breakdowns().getFirst(), slowest);
            out.printf("Per-step latency, %2d processes on device 0: %.1f us/step marginal, %.1f us/step over a whole"
                            + " run of %d steps%n", p, marginal, r.microsPerStep(), r.steps());
            if (slowest == r.process0()) {
                out.printf("    process 0, also the slowest in its own calls: %s%n", describe(slowest));
            } else {
                out.printf("    process 0: %s%n    slowest in its own calls, process %d: %s%n", describe(r.process0()),
                        slowest.process(), describe(slowest));
            }
            results.add(r);
        }
        return results;
    }

    private static double ownCalls(Breakdown b) {
        return b.streamWaitMicros() + b.fillLaunchMicros() + b.recordMicros();
    }

    private static String describe(Breakdown b) {
        return String.format("per step wait %.1f, fill launch %.1f, record %.1f, barrier %.1f us",
                b.streamWaitMicros(), b.fillLaunchMicros(), b.recordMicros(), b.barrierMicros());
    }

    private static Run runOnce(String backend, int processes, int rounds) {
        List<String> args = List.of("--backend", backend, "--devices", "0", "--procs-per-device",
                Integer.toString(processes), "--size", "4K", "--steps", Integer.toString(rounds), "--json");
        JsonObject json = launchJson(args);
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
                    perStep(child, "barrierMicros", steps)));
        }
        return new Run(steps, worst, breakdowns);
    }

    private static double perStep(JsonObject child, String total, long steps) {
        return child.get("total." + total).getAsDouble() * 1000 / steps;
    }

    static JsonObject launchJson(List<String> args) {
        ToolLauncher.Outcome o = ToolLauncher.run(args);
        if (o.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", args) + " exited " + o.exitCode() + ": " + o.lastErrorLine());
        }
        return JsonParser.parseString(o.stdout()).getAsJsonObject();
    }
}
