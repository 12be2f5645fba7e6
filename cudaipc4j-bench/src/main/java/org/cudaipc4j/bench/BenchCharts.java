package org.cudaipc4j.bench;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.tool.InputFiles;
import org.cudaipc4j.tool.UsageException;

/** PNG charts from a bench's results: the end-to-end phases, the marginal step costs, the fill bandwidth. */
public final class BenchCharts {
    private BenchCharts() {}

    /**
     * {@code bench chart}: the charts of the bench results in {@code json}, drawn into {@code dir}, which is made
     * when missing; the file is read (and refused, in one line) before the folder is made.
     */
    public static void renderInto(Path json, Path dir) {
        JsonObject results = read(json);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("bench chart: cannot make the folder '" + dir + "'", e);
        }
        render(results, json, dir);
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

    /** The parts of a bench.json that charts are drawn from. */
    private static final List<String> CHARTED = List.of("endToEnd", "stepLatency", "fill");
    /** The most a bench.json may hold; it is a few kilobytes. */
    static final int MAX_JSON_BYTES = 64 << 20;

    /**
     * The results in {@code json}, or a failure in one line naming the file: unreadable, not JSON, or JSON that
     * holds none of a bench's results (such as a run's {@code --json} report).
     */
    static JsonObject read(Path json) {
        String text;
        try {
            text = InputFiles.utf8(json, MAX_JSON_BYTES);
            if (text == null) {
                throw new UsageException("bench chart: '" + json + "' holds more than " + MAX_JSON_BYTES
                        + " bytes: no bench.json is that long");
            }
        } catch (java.nio.file.NoSuchFileException e) {
            throw new UsageException("bench chart: '" + json + "' does not exist");
        } catch (InputFiles.NotUtf8Exception e) {
            throw new UsageException("bench chart: '" + json + "' is not UTF-8 text");
        } catch (InputFiles.NotRegularFileException e) {
            throw new UsageException("bench chart: '" + json + "' is " + e.getMessage());
        } catch (IOException e) {
            throw new UsageException("bench chart: cannot read '" + json + "': "
                    + org.cudaipc4j.tool.Failures.fileReason(e));
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
            throw new UsageException("bench chart: '" + json + "' is not valid JSON (" + why + ")");
        }
        if (!parsed.isJsonObject() || CHARTED.stream().noneMatch(parsed.getAsJsonObject()::has)) {
            boolean runReport = parsed.isJsonObject() && parsed.getAsJsonObject().has("tool");
            throw new UsageException("bench chart: '" + json + "' holds no bench results ("
                    + String.join(", ", CHARTED) + ")" + (runReport ? "; it is a run's report" : "")
                    + ": charts are drawn from the bench.json that 'cudaipc4j bench --out DIR' writes");
        }
        return parsed.getAsJsonObject();
    }

    /** Draws the charts of the bench results in {@code json} into the folder {@code dir}, which exists. */
    public static void render(Path json, Path dir) {
        render(read(json), json, dir);
    }

    /**
     * Reads every part before it draws any, so that input it cannot draw leaves no chart, not even an empty file:
     * a part of another shape, or a number that is not finite (JSON's 1e400), is one line naming the part.
     */
    private static void render(JsonObject results, Path json, Path dir) {
        List<Runnable> drawings = new ArrayList<>();
        for (String part : CHARTED) {
            if (!results.has(part)) {
                continue;
            }
            try {
                drawings.add(drawing(part, results, dir));
            } catch (ArithmeticException e) {
                throw new UsageException("bench chart: '" + json + "' has a number that is not finite in"
                        + " its " + part + " part");
            } catch (IllegalStateException | ClassCastException | NullPointerException
                     | UnsupportedOperationException | NumberFormatException e) {
                // Gson's accessors on a part of another shape.
                throw new UsageException("bench chart: '" + json + "' has bench results of an unknown"
                        + " shape in its " + part + " part");
            }
        }
        drawings.forEach(Runnable::run);
    }

    /** {@code e} as a number; an {@link ArithmeticException} when it is not finite. */
    private static double finite(com.google.gson.JsonElement e) {
        double d = e.getAsDouble();
        if (!Double.isFinite(d)) {
            throw new ArithmeticException(d + " is not finite");
        }
        return d;
    }

    /** The chart of {@code part}, read now and drawn when run. */
    private static Runnable drawing(String part, JsonObject results, Path dir) {
        if (part.equals("endToEnd")) {
            Map<String, Map<String, Double>> bars = new LinkedHashMap<>();
            for (var e : results.getAsJsonArray("endToEnd")) {
                JsonObject r = e.getAsJsonObject();
                String label = String.join(" ", new Gson().fromJson(r.get("args"), String[].class));
                Map<String, Double> phases = new LinkedHashMap<>();
                if (r.has("medianRunCriticalPathMs")) {
                    for (var p : r.getAsJsonObject("medianRunCriticalPathMs").entrySet()) {
                        phases.put(p.getKey(), finite(p.getValue()));
                    }
                } else { // written by an older build: per-phase medians
                    for (var p : r.getAsJsonObject("criticalPathMs").entrySet()) {
                        phases.put(p.getKey(), finite(p.getValue().getAsJsonObject().get("median")));
                    }
                }
                bars.put(label.isEmpty() ? "default" : label, phases);
            }
            Path png = dir.resolve("bench-phases.png");
            return () -> {
                ChartWriter.phases(bars, "simpleIPC end to end: critical path of the median run", png);
                System.out.println("Wrote " + png);
            };
        }
        if (part.equals("stepLatency")) {
            Map<String, List<double[]>> series = stepSeries(results.getAsJsonArray("stepLatency"));
            series.values().forEach(points -> points.forEach(p -> {
                if (!Double.isFinite(p[0]) || !Double.isFinite(p[1])) {
                    throw new ArithmeticException("not finite");
                }
            }));
            Path png = dir.resolve("bench-steps.png");
            return () -> {
                ChartWriter.stepCosts(series, "simpleIPC rotation: marginal cost of a step", png);
                System.out.println("Wrote " + png);
            };
        }
        Map<String, List<double[]>> series = new LinkedHashMap<>(); // fill
        for (var s : results.getAsJsonObject("fill").getAsJsonObject("gbPerSecond").entrySet()) {
            List<double[]> points = new ArrayList<>();
            for (var p : s.getValue().getAsJsonArray()) {
                points.add(new double[] {finite(p.getAsJsonArray().get(0)), finite(p.getAsJsonArray().get(1))});
            }
            series.put(s.getKey(), points);
        }
        Path png = dir.resolve("bench-bandwidth.png");
        return () -> {
            ChartWriter.bandwidth(series, "Device fill bandwidth", png);
            System.out.println("Wrote " + png);
        };
    }
}
