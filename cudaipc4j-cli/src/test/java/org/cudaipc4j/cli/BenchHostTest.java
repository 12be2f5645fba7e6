package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code bench} runs to the end on simulated devices and writes its report and charts. */
class BenchHostTest {
    private static final Duration LIMIT = Duration.ofMinutes(4);
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    /**
     * A bench ended by SIGTERM or SIGKILL while a run of the tool is in flight ends that run too: the run's group
     * ends and removes what it made, instead of going on under init.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SIGTERM", "SIGKILL"})
    void aBenchEndedByASignalEndsTheRunItHasInFlight(String signal) throws Exception {
        Process bench = ToolRun.start("bench", "--backend", "host", "--only", "e2e", "--repeat", "1",
                "--run-args=--size 4K --procs-per-device 2 --steps 100000000 --timeout 120s");
        bench.getOutputStream().close();
        java.util.concurrent.CompletableFuture<String> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(bench.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        }, runnable -> Thread.ofPlatform().daemon().start(runnable));
        List<ProcessHandle> run = new java.util.ArrayList<>();
        try {
            // The run's parent and its four children: all started (the handshake is their existence).
            assertTrue(org.cudaipc4j.testing.Waits.until(60_000, () -> bench.descendants().count() >= 5),
                    "the run did not start: " + bench.descendants().toList());
            run.addAll(bench.descendants().toList());
            long runParent = bench.children().findFirst().orElseThrow().pid();
            // Through its handle: Process.destroy would also close this side of the bench's pipes.
            if (signal.equals("SIGTERM")) {
                bench.toHandle().destroy(); // its hook stops the run
            } else {
                bench.toHandle().destroyForcibly(); // no hook runs: the run sees the bench gone and stops itself
            }
            assertTrue(bench.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the bench did not end");
            String said = err.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(said.contains("Exception") || said.contains("\tat "), "what the bench said: " + said);
            assertTrue(org.cudaipc4j.testing.Waits.until(30_000, () -> run.stream().noneMatch(ProcessHandle::isAlive)),
                    "processes of the run left: " + run.stream().filter(ProcessHandle::isAlive).toList());
            try (var shm = Files.list(Path.of("/dev/shm"))) {
                List<Path> left = shm.filter(f -> f.getFileName().toString().startsWith("cudaipc4j-" + runParent + "-"))
                        .toList();
                assertEquals(List.of(), left, "the run's segments");
            }
        } finally {
            run.forEach(ProcessHandle::destroyForcibly); // whatever is left of the run, also under init
            bench.destroyForcibly();
            // a bench killed by SIGKILL leaves its run's report file to the next bench: removed here
            try (var tmp = Files.newDirectoryStream(Path.of(System.getProperty("java.io.tmpdir")),
                    "cudaipc4j-bench-" + bench.pid() + "-*")) {
                for (Path left : tmp) {
                    Files.deleteIfExists(left);
                }
            }
        }
    }

    /** A bench that fails leaves none of the --out folders it made (they stay empty); one that passes keeps them. */
    @Test
    void aFailedBenchLeavesNoEmptyFolderItMade(@TempDir Path tmp) {
        Path out = tmp.resolve("made/by/bench");
        ToolRun run = ToolRun.run(LIMIT, "bench", "--backend", "host", "--only", "e2e", "--repeat", "1",
                "--run-args=--size 4K --inject-corruption 0", "--out", out.toString());
        run.assertExit(ExitCodes.FAILURE);
        assertFalse(Files.exists(tmp.resolve("made")), "left: " + tmp.resolve("made"));
    }

    @Test
    void aShortBenchOnTheHostBackendWritesItsReportAndCharts(@TempDir Path tmp) throws IOException {
        // Every part that needs no GPU, each as short as its options allow; fill bandwidth needs a GPU.
        Path out = tmp.resolve("results");
        ToolRun run = ToolRun.run(LIMIT, "bench", "--backend", "host", "--only", "e2e,steps,barrier", "--repeat",
                "2", "--run-args=--size 4K", "--procs", "2", "--step-count", "16", "--step-pairs", "1",
                "--step-size", "4K", "--barrier-rounds", "200", "--out", out.toString());
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        assertFalse(run.err.contains("Exception") || run.err.contains("\tat "), run.err);

        Path json = out.resolve("bench.json");
        assertTrue(run.out.contains("Wrote " + json), run.out);
        JsonObject results = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        assertEquals("host", results.get("backend").getAsString());
        assertFalse(results.has("fill"), "fill was not asked for");

        JsonArray e2e = results.getAsJsonArray("endToEnd");
        assertEquals(1, e2e.size());
        JsonObject end = e2e.get(0).getAsJsonObject();
        assertEquals(List.of("--backend", "host", "--size", "4K"),
                end.getAsJsonArray("args").asList().stream().map(e -> e.getAsString()).toList());
        assertEquals(2, end.get("runs").getAsInt());
        JsonObject wall = end.getAsJsonObject("wallMs");
        assertEquals(2, wall.get("count").getAsInt());
        assertTrue(wall.get("min").getAsDouble() > 0 && wall.get("min").getAsDouble() <= wall.get("median")
                .getAsDouble() && wall.get("median").getAsDouble() <= wall.get("max").getAsDouble(), wall.toString());
        assertFalse(end.getAsJsonObject("medianRunCriticalPathMs").isEmpty(), end.toString());

        JsonArray steps = results.getAsJsonArray("stepLatency");
        assertEquals(1, steps.size(), steps.toString());
        JsonObject step = steps.get(0).getAsJsonObject();
        assertEquals(2, step.get("processes").getAsInt());
        assertTrue(step.has("marginalMicrosPerStep"), step.toString());

        JsonArray barrier = results.getAsJsonArray("barrierLatency");
        assertEquals(1, barrier.size(), barrier.toString());
        JsonObject b = barrier.get(0).getAsJsonObject();
        assertEquals(2, b.get("processes").getAsInt());
        assertEquals(200, b.get("rounds").getAsInt());
        assertTrue(b.get("samples").getAsLong() > 0 && b.get("minMicros").getAsDouble() <= b.get("medianMicros")
                .getAsDouble() && b.get("medianMicros").getAsDouble() <= b.get("maxMicros").getAsDouble(),
                b.toString());

        for (String chart : new String[] {"bench-phases.png", "bench-steps.png"}) {
            Path png = out.resolve(chart);
            assertTrue(run.out.contains("Wrote " + png), run.out);
            byte[] bytes = Files.readAllBytes(png);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, PNG_SIGNATURE.length), chart + " is no PNG");
            BufferedImage image = ImageIO.read(png.toFile());
            assertNotNull(image, chart + " does not decode");
            assertTrue(image.getWidth() > 100 && image.getHeight() > 100, chart + ": " + image.getWidth() + "x"
                    + image.getHeight());
        }
        assertFalse(Files.exists(out.resolve("bench-bandwidth.png")), "no fill, no bandwidth chart");
    }
}
