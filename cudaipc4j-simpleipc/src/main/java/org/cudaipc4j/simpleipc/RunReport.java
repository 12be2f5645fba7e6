package org.cudaipc4j.simpleipc;

import com.google.gson.GsonBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable result of a run ({@code --json}): configuration, outcome, and the phase timestamps of the
 * parent and of each child in milliseconds since the parent's process started.
 */
final class RunReport {
    record FailureEntry(int process, String reason) {}

    final String tool = "cudaipc4j simpleipc";
    String backend;
    boolean simulated;
    String result = "failed";
    /** Why the run was waived (no IPC-capable device), or null. */
    String waivedBecause;
    int exitCode;
    List<Integer> devices = List.of();
    int processes;
    final long bytesPerBuffer;
    final int procsPerDevice;
    final int rounds;
    final List<FailureEntry> failures = new ArrayList<>();
    transient Map<String, Long> parentPhases = Map.of();
    transient List<Map<String, Long>> childPhases = List.of();

    RunReport(SimpleIpcOptions options) {
        this.bytesPerBuffer = options.bytes();
        this.procsPerDevice = options.procsPerDevice();
        this.rounds = options.rounds();
    }

    String toJson() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("tool", tool);
        root.put("backend", backend);
        root.put("simulated", simulated);
        root.put("result", result);
        if (waivedBecause != null) {
            root.put("reason", waivedBecause);
        }
        root.put("exitCode", exitCode);
        root.put("devices", devices);
        root.put("processes", processes);
        root.put("bytesPerBuffer", bytesPerBuffer);
        root.put("procsPerDevice", procsPerDevice);
        root.put("rounds", rounds);
        root.put("failures", failures);
        long origin = parentPhases.getOrDefault("jvmStart", parentPhases.getOrDefault("main", 0L));
        root.put("originEpochMicros", origin);
        root.put("parentMs", relative(parentPhases, origin));
        List<Map<String, Double>> children = new ArrayList<>();
        for (Map<String, Long> c : childPhases) {
            children.add(relative(c, origin));
        }
        root.put("childrenMs", children);
        return new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create().toJson(root);
    }

    private static Map<String, Double> relative(Map<String, Long> marks, long origin) {
        Map<String, Double> out = new LinkedHashMap<>();
        marks.forEach((k, v) -> {
            long from = k.startsWith(PhaseLog.TOTAL) ? 0 : origin; // durations are already relative
            out.put(k, v < 0 ? null : Math.round((v - from) / 10.0) / 100.0);
        });
        return out;
    }
}
