package org.cudaipc4j.app.bench;

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
import java.util.function.IntConsumer;
import org.cudaipc4j.app.Main;
import org.cudaipc4j.app.simpleipc.Clock;
import org.cudaipc4j.app.simpleipc.SimpleIpcParent;

/**
 * Runs the simpleIPC program as a fresh process, {@code repeat} times, and splits each run into the phases of its
 * critical path (from the {@code --json} report: parent and child timestamps on one clock) plus the wall time seen
 * from outside (process spawn to exit).
 */
final class EndToEndBench {
    /** Critical-path phases in order, each the difference of two marks (parent = p., child 0 = c.). */
    static final List<String[]> CRITICAL_PATH = List.of(
            new String[] {"parent JVM start", "p.spawned", "p.main"},
            new String[] {"driver init + device selection", "p.main", "p.selected"},
            new String[] {"control block + child spawn", "p.selected", "p.childrenStarted"},
            new String[] {"child JVM start", "p.childrenStarted", "c.main"},
            new String[] {"child join", "c.main", "c.joined"},
            new String[] {"child driver + context + module", "c.joined", "c.attached"},
            new String[] {"wait for parent's handles", "c.attached", "c.ready"},
            new String[] {"handle open", "c.ready", "c.opened"},
            new String[] {"steps", "c.opened", "c.steps"},
            new String[] {"copy back + verification", "c.steps", "c.verified"},
            new String[] {"child teardown + exit", "c.verified", "p.childrenDone"},
            new String[] {"parent teardown", "p.childrenDone", "p.exit"},
            new String[] {"parent JVM exit", "p.exit", "p.reaped"});
    /** Parent work that overlaps the child's start-up. */
    static final List<String[]> PARENT_OVERLAPPED = List.of(
            new String[] {"parent context + peer enabling", "p.childrenStarted", "p.prepared"},
            new String[] {"allocation + export", "p.prepared", "p.exported"});

    record Result(List<String> args, int runs, Stats wallMs, Map<String, Stats> criticalPathMs,
            Map<String, Stats> parentOverlappedMs, List<Double> wallSamplesMs) {}

    /**
     * Runs the tool {@code repeat} times with exactly {@code toolArgs} (nothing added, so the default run is timed
     * as users run it); the phases come from the report file named by {@link SimpleIpcParent#REPORT_ENV}.
     */
    static Result run(List<String> toolArgs, int repeat, IntConsumer progress) {
        List<Double> wall = new ArrayList<>();
        Map<String, List<Double>> path = new LinkedHashMap<>();
        Map<String, List<Double>> overlapped = new LinkedHashMap<>();
        for (int r = 0; r < repeat; r++) {
            JsonObject json;
            double ms;
            long spawned;
            long reaped;
            Path report = tempFile();
            try {
                spawned = Clock.micros();
                long t0 = System.nanoTime();
                ToolLauncher.Outcome o = ToolLauncher.runMain(Main.class.getName(), toolArgs,
                        Map.of(SimpleIpcParent.REPORT_ENV, report.toString()));
                ms = (System.nanoTime() - t0) / 1e6;
                reaped = Clock.micros();
                if (o.exitCode() != 0) {
                    throw new IllegalStateException("run " + (r + 1) + " of '" + String.join(" ", toolArgs)
                            + "' exited " + o.exitCode() + ": " + o.lastErrorLine());
                }
                json = JsonParser.parseString(Files.readString(report)).getAsJsonObject();
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
            JsonObject child = json.getAsJsonArray("childrenMs").get(0).getAsJsonObject();
            collect(CRITICAL_PATH, parent, child, path);
            collect(PARENT_OVERLAPPED, parent, child, overlapped);
            progress.accept(r + 1);
        }
        return new Result(toolArgs, repeat, Stats.of(wall), summarize(path), summarize(overlapped), wall);
    }

    private static void collect(List<String[]> phases, JsonObject parent, JsonObject child,
            Map<String, List<Double>> into) {
        for (String[] p : phases) {
            Double from = mark(p[1], parent, child);
            Double to = mark(p[2], parent, child);
            if (from != null && to != null) {
                into.computeIfAbsent(p[0], k -> new ArrayList<>()).add(to - from);
            }
        }
    }

    private static Double mark(String name, JsonObject parent, JsonObject child) {
        JsonObject src = name.startsWith("p.") ? parent : child;
        String key = name.substring(2);
        return src.has(key) && !src.get(key).isJsonNull() ? src.get(key).getAsDouble() : null;
    }

    private static Map<String, Stats> summarize(Map<String, List<Double>> samples) {
        Map<String, Stats> out = new LinkedHashMap<>();
        samples.forEach((k, v) -> out.put(k, Stats.of(v)));
        return out;
    }

    private static Path tempFile() {
        try {
            return Files.createTempFile("cudaipc4j-report", ".json");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary report file", e);
        }
    }
}
