package org.cudaipc4j.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.cudaipc4j.simpleipc.Clock;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/**
 * Runs the simpleIPC program as a fresh process, {@code repeat} times, and splits each run into the phases of its
 * critical path (from the run report: parent and child timestamps on one clock) plus the wall time seen from
 * outside (process spawn to exit). Each phase's own duration is reported too, for the work that overlaps.
 */
final class EndToEndBench {
    /**
     * The marks of a run (parent = p., child 0 = c.) as a graph: each mark with the label of the phase that ends
     * there and the marks it waits for. Walking back from the reap, always through the latest of a mark's
     * predecessors, gives the critical path; a predecessor in the same process gives the phase's own duration.
     */
    record Mark(String name, String label, List<String> after) {}

    static final List<Mark> MARKS = List.of(
            new Mark("p.main", "parent JVM start", List.of("p.spawned")),
            new Mark("p.childrenStarted", "child spawn", List.of("p.main", "p.selected")),
            new Mark("p.blockCreated", "control block", List.of("p.childrenStarted")),
            new Mark("p.cuInit", "parent driver init", List.of("p.main")),
            new Mark("p.driver", "parent waits for its driver", List.of("p.cuInit", "p.blockCreated")),
            new Mark("p.selected", "device selection", List.of("p.driver")),
            new Mark("p.assigned", "device assignment", List.of("p.selected", "p.blockCreated")),
            new Mark("p.prepared", "parent context + peer enabling", List.of("p.assigned")),
            new Mark("p.exported", "allocation + export", List.of("p.prepared")),
            new Mark("c.main", "child JVM start", List.of("p.childrenStarted")),
            new Mark("c.joined", "child join (shared memory)", List.of("c.main", "p.blockCreated")),
            new Mark("c.driver", "child driver init", List.of("c.main")),
            new Mark("c.assigned", "child gets its device", List.of("c.driver", "c.joined", "p.assigned")),
            new Mark("c.attached", "child context + stream + module", List.of("c.assigned")),
            new Mark("c.ready", "child gets the handles", List.of("c.attached", "p.exported")),
            new Mark("c.opened", "handle open", List.of("c.ready")),
            new Mark("c.steps", "steps", List.of("c.opened")),
            new Mark("c.verified", "verification", List.of("c.steps")),
            new Mark("c.released", "child closes its mappings", List.of("c.verified")),
            new Mark("c.exit", "child teardown", List.of("c.released")),
            new Mark("p.released", "parent sees the release", List.of("c.released", "p.exported")),
            new Mark("p.freed", "parent frees + releases its context", List.of("p.released")),
            new Mark("p.childrenDone", "child exit + reap", List.of("c.exit", "p.freed", "p.exported")),
            new Mark("p.teardown", "parent cleanup", List.of("p.childrenDone")),
            new Mark("p.exit", "parent report", List.of("p.teardown")),
            new Mark("p.reportWritten", "parent writes the report file", List.of("p.exit")),
            new Mark("p.reaped", "parent JVM exit", List.of("p.reportWritten", "p.exit")));

    /**
     * @param medianRunCriticalPathMs the critical path of the run with the median wall time (the lower middle for
     *                                an even count): one real run, whose phases add up
     * @param criticalPathMs          each phase's statistics over the runs whose critical path went through it
     *                                (the path differs between runs, so these medians do not add up)
     * @param phaseMs                 each phase's own duration, critical or not
     */
    record Result(List<String> args, int runs, Stats wallMs, Map<String, Double> medianRunCriticalPathMs,
            Map<String, Stats> criticalPathMs, Map<String, Stats> phaseMs, List<Double> wallSamplesMs) {}

    /**
     * Runs the tool ({@code toolMainClass}) {@code repeat} times with exactly {@code toolArgs} (nothing added, so the default run is timed
     * as users run it); the phases come from the report file named by {@link SimpleIpcSettings#REPORT}.
     */
    static Result run(String toolMainClass, List<String> toolArgs, int repeat, IntConsumer progress) {
        List<Double> wall = new ArrayList<>();
        Map<String, List<Double>> path = new LinkedHashMap<>();
        Map<String, List<Double>> own = new LinkedHashMap<>();
        List<Map<String, Double>> paths = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            JsonObject json;
            double ms;
            long spawned;
            long reaped;
            long reportMicros;
            Path report = BenchTempFiles.reportFile();
            try {
                spawned = Clock.micros();
                long t0 = System.nanoTime();
                ToolLauncher.Outcome o = ToolLauncher.runMain(toolMainClass, toolArgs,
                        Map.of(SimpleIpcSettings.REPORT.name(), report.toString()));
                ms = (System.nanoTime() - t0) / 1e6;
                reaped = Clock.micros();
                o.requirePassed("run " + (r + 1) + " of '" + String.join(" ", toolArgs) + "'");
                json = JsonParser.parseString(Files.readString(report)).getAsJsonObject();
                reportMicros = Files.getLastModifiedTime(report).to(TimeUnit.MICROSECONDS);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the run report " + report, e);
            } finally {
                report.toFile().delete();
            }
            wall.add(ms);
            JsonObject parent = json.getAsJsonObject("parentMs");
            // Spawn and exit as seen from here, on the report's clock (the kernel's process start time, which the
            // report uses as its origin, is too coarse and on some VMs offset).
            long origin = json.get("originEpochMicros").getAsLong();
            parent.addProperty("spawned", (spawned - origin) / 1000.0);
            parent.addProperty("reaped", (reaped - origin) / 1000.0);
            // The report is written after the parent's last mark (the bench's own cost, not a user's): its file
            // time tells how long that took, to the file system's clock resolution.
            parent.addProperty("reportWritten", (reportMicros - origin) / 1000.0);
            JsonObject child = json.getAsJsonArray("childrenMs").get(0).getAsJsonObject();
            Map<String, Double> times = times(parent, child);
            Map<String, Double> runPath = criticalPath(times);
            paths.add(runPath);
            runPath.forEach((k, v) -> path.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
            ownPhases(times).forEach((k, v) -> own.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
            progress.accept(r + 1);
        }
        List<Integer> byWall = new ArrayList<>();
        for (int i = 0; i < wall.size(); i++) {
            byWall.add(i);
        }
        byWall.sort((a, b) -> Double.compare(wall.get(a), wall.get(b)));
        Map<String, Double> medianRun = paths.get(byWall.get((byWall.size() - 1) / 2));
        return new Result(toolArgs, repeat, Stats.of(wall), medianRun, summarize(path), summarize(own), wall);
    }

    /** Every mark of the run that is in the graph, by name (milliseconds on the report's clock). */
    static Map<String, Double> times(JsonObject parent, JsonObject child) {
        Map<String, Double> times = new LinkedHashMap<>();
        put(times, "p.spawned", parent);
        for (Mark m : MARKS) {
            put(times, m.name(), m.name().startsWith("p.") ? parent : child);
        }
        return times;
    }

    private static void put(Map<String, Double> times, String name, JsonObject src) {
        String key = name.substring(2);
        if (src.has(key) && !src.get(key).isJsonNull()) {
            times.put(name, src.get(key).getAsDouble());
        }
    }

    /** The critical path, in order: label to milliseconds. */
    static Map<String, Double> criticalPath(Map<String, Double> times) {
        List<Map.Entry<String, Double>> reversed = new ArrayList<>();
        String at = "p.reaped";
        while (times.containsKey(at)) {
            Mark m = mark(at);
            if (m == null) {
                break;
            }
            String from = latest(times, m.after(), times.get(at));
            if (from == null) {
                break;
            }
            reversed.add(Map.entry(m.label(), times.get(at) - times.get(from)));
            at = from;
        }
        Map<String, Double> path = new LinkedHashMap<>();
        for (Map.Entry<String, Double> e : reversed.reversed()) {
            path.merge(e.getKey(), e.getValue(), Double::sum);
        }
        return path;
    }

    /** Each phase's own duration: from its latest predecessor in the same process. */
    static Map<String, Double> ownPhases(Map<String, Double> times) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Mark m : MARKS) {
            Double t = times.get(m.name());
            if (t == null) {
                continue;
            }
            String process = m.name().substring(0, 2);
            List<String> same = m.after().stream().filter(a -> a.startsWith(process)).toList();
            String from = latest(times, same, t);
            if (from != null) {
                out.put(m.label(), t - times.get(from));
            }
        }
        return out;
    }

    private static Mark mark(String name) {
        for (Mark m : MARKS) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        return null;
    }

    /** Of {@code candidates} present in {@code times} and not later than {@code notAfter}, the latest. */
    private static String latest(Map<String, Double> times, List<String> candidates, double notAfter) {
        String best = null;
        for (String c : candidates) {
            Double t = times.get(c);
            if (t != null && t <= notAfter && (best == null || t > times.get(best))) {
                best = c;
            }
        }
        return best;
    }

    private static Map<String, Stats> summarize(Map<String, List<Double>> samples) {
        Map<String, Stats> out = new LinkedHashMap<>();
        samples.forEach((k, v) -> out.put(k, Stats.of(v)));
        return out;
    }
}
