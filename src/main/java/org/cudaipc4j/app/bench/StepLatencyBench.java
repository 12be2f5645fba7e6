package org.cudaipc4j.app.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-step overhead of the rotation (stream wait + kernel launch + event record + barrier) with P processes on
 * one device: a simpleIPC run with tiny buffers and many rounds, its steps phase divided by the number of steps.
 */
final class StepLatencyBench {
    record Result(int processes, long steps, double microsPerStep, double streamWaitMicros, double fillLaunchMicros,
            double recordMicros, double barrierMicros) {}

    private StepLatencyBench() {}

    static List<Result> run(String backend, List<Integer> processCounts, int rounds, PrintStream out) {
        List<Result> results = new ArrayList<>();
        for (int p : processCounts) {
            List<String> args = List.of("--backend", backend, "--devices", "0", "--procs-per-device",
                    Integer.toString(p), "--size", "4K", "--steps", Integer.toString(rounds), "--json");
            JsonObject json = launchJson(args);
            long steps = (long) p * rounds;
            double worst = 0;
            // The slowest process bounds the step rate; each child's steps phase covers all steps.
            for (var c : json.getAsJsonArray("childrenMs")) {
                JsonObject child = c.getAsJsonObject();
                double ms = child.get("steps").getAsDouble() - child.get("opened").getAsDouble();
                worst = Math.max(worst, ms);
            }
            JsonObject c0 = json.getAsJsonArray("childrenMs").get(0).getAsJsonObject();
            // total.* are milliseconds summed over the steps of process 0: us per step = ms * 1000 / steps.
            double wait = c0.get("total.streamWaitMicros").getAsDouble() * 1000 / steps;
            double fill = c0.get("total.fillLaunchMicros").getAsDouble() * 1000 / steps;
            double record = c0.get("total.recordMicros").getAsDouble() * 1000 / steps;
            double barrier = c0.get("total.barrierMicros").getAsDouble() * 1000 / steps;
            Result r = new Result(p, steps, worst * 1000 / steps, wait, fill, record, barrier);
            out.printf("Per-step latency, %2d processes on device 0: %.1f us/step (%d steps; process 0 per step:"
                            + " wait %.1f, fill launch %.1f, record %.1f, barrier %.1f us)%n",
                    p, r.microsPerStep(), steps, wait, fill, record, barrier);
            results.add(r);
        }
        return results;
    }

    static JsonObject launchJson(List<String> args) {
        ToolLauncher.Outcome o = ToolLauncher.run(args);
        if (o.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", args) + " exited " + o.exitCode() + ": " + o.lastErrorLine());
        }
        return JsonParser.parseString(o.stdout()).getAsJsonObject();
    }
}
