package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interop benchmark's figures and descriptor checks, without a GPU. */
class InteropBenchTest {
    private static final String UUID = "GPU-01234567-89ab-cdef-0123-456789abcdef";

    @TempDir
    Path dir;

    private static String golden(String name) throws IOException {
        Path root = ProjectRoot.find().orElseThrow(() -> new AssertionError("not inside the checkout"));
        return Files.readString(root.resolve("interop-golden/java").resolve(name)).strip();
    }

    @Test
    void figuresAreOneJsonLineInTheSummarysShape() {
        InteropFigures f = new InteropFigures("tensor", "c", 64L << 20, 1).put("first_open_us", 412.34567)
                .put("reopens", 50L);
        String line = f.jsonLine();
        assertFalse(line.contains("\n"));
        JsonObject o = JsonParser.parseString(line).getAsJsonObject();
        assertEquals(List.of("impl", "case", "alloc", "bytes", "tensors", "first_open_us", "reopens"),
                List.copyOf(o.keySet()));
        assertEquals("java", o.get("impl").getAsString());
        assertEquals(412.346, o.get("first_open_us").getAsDouble());
        assertEquals(50, o.get("reopens").getAsLong());
    }

    @Test
    void mediansAndBandwidth() {
        assertEquals(2.0, InteropFigures.medianMicros(new long[] {3000, 1000, 2000}));
        assertEquals(2.5, InteropFigures.medianMicros(new long[] {4000, 1000, 2000, 3000}));
        assertTrue(Double.isNaN(InteropFigures.medianMicros(new long[0])));
        assertEquals(3.0, InteropFigures.median(new double[] {5, 1, 3}));
        assertEquals(2.5, InteropFigures.median(new double[] {4, 1, 2, 3}));
        // 1e9 bytes, 4 copies, 2 ms: 2000 GB/s
        assertEquals(2000.0, InteropFigures.gbPerSecond(1_000_000_000L, 4, 2.0), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> InteropFigures.gbPerSecond(1, 1, 0));
    }

    @Test
    void eachCaseTakesItsDescriptors() throws IOException {
        Descriptor torch = DescriptorJson.fromJson(golden("torch-c.json"));
        assertNull(InteropBench.unfit(InteropBench.Case.TENSOR, torch));
        assertNull(InteropBench.unfit(InteropBench.Case.STATE_DICT, torch));
        assertTrue(InteropBench.unfit(InteropBench.Case.POOL, torch).contains("got torch"));
        assertEquals(InteropBench.Case.STATE_DICT, InteropBench.Case.of("state-dict"));
        assertNull(InteropBench.Case.of("nonsense"));
        assertThrows(IllegalArgumentException.class, () -> new InteropBench.Plan(InteropBench.Case.TENSOR,
                List.of(torch), null, 0));
    }

    @Test
    void theScaleCaseTakesAnExecTimeAndSteadyRoundsThePoolCaseMayTakeAnExecTime() throws IOException {
        Descriptor torch = DescriptorJson.fromJson(golden("torch-c.json"));
        assertEquals(InteropBench.Case.SCALE, InteropBench.Case.of("scale"));
        InteropBench.Plan p = InteropBench.Plan.scale(List.of(torch), List.of(dir.resolve("r1")), 42);
        assertEquals(List.of(dir.resolve("r1")), p.steady());
        assertThrows(IllegalArgumentException.class, () -> InteropBench.Plan.scale(List.of(torch), List.of(), 0));
        assertThrows(IllegalArgumentException.class, () -> new InteropBench.Plan(InteropBench.Case.STATE_DICT,
                List.of(torch), null, 1, false, List.of(dir.resolve("r1")), 0));
        assertThrows(IllegalArgumentException.class, () -> new InteropBench.Plan(InteropBench.Case.STATE_DICT,
                List.of(torch), null, 1, false, List.of(), 42));
        assertTrue(InteropBench.unfitForDriverCalls(InteropBench.Case.SCALE, torch).contains("not for a scale run"));
        Descriptor pool = DescriptorJson.fromJson(golden("pool-fd.json"));
        assertTrue(InteropBench.Plan.poolFromExec(List.of(pool), 42).fromExec());
        assertFalse(new InteropBench.Plan(InteropBench.Case.POOL, List.of(pool), null, 1).fromExec());
        assertThrows(IllegalArgumentException.class, () -> new InteropBench.Plan(InteropBench.Case.POOL,
                List.of(pool), null, 1, false, List.of(dir.resolve("r1")), 42));
    }

    @Test
    void aSteadyRoundIsReadAndCheckedAsTheScaleCasesShares() throws IOException {
        String c = golden("torch-c.json");
        Path round = Files.writeString(dir.resolve("sc.jsonl.1"), c + "\n" + c + "\n");
        assertEquals(2, InteropBench.steadyRound(round).size());
        Path pool = Files.writeString(dir.resolve("p.jsonl"), golden("pool-fd.json") + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> InteropBench.steadyRound(pool));
        assertTrue(e.getMessage().startsWith(pool + ": ") && e.getMessage().contains("takes torch descriptors"),
                e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> InteropBench.steadyRound(dir.resolve("none"))).getMessage().contains("no such file"));
    }

    @Test
    void theScaleFiguresNameTheJavaReadersStart() {
        JsonObject o = JsonParser.parseString(new InteropFigures("scale", "e", 1, 20000)
                .put("exec_to_open_us", 812345.0).put("open_us", 250123.5).impl("java-aot").jsonLine())
                .getAsJsonObject();
        assertEquals(List.of("impl", "case", "alloc", "bytes", "tensors", "exec_to_open_us", "open_us"),
                List.copyOf(o.keySet()));
        assertEquals("java-aot", o.get("impl").getAsString());
        assertTrue(InteropFigures.startedWithAotCache(List.of("-XX:AOTCache=r.aot", "-XX:AOTMode=on")));
        assertFalse(InteropFigures.startedWithAotCache(List.of("-XX:AOTCache=r.aot")));
        assertFalse(InteropFigures.startedWithAotCache(List.of("-XX:AOTCache=r.aot", "-XX:AOTMode=on",
                "-XX:AOTMode=auto")));
        assertFalse(InteropFigures.startedWithAotCache(List.of("-XX:AOTCacheOutput=r.aot", "-XX:AOTMode=on")));
        long now = InteropFigures.epochMicros();
        assertTrue(Math.abs(now - System.currentTimeMillis() * 1000) < 5_000_000, Long.toString(now));
    }

    @Test
    void allocIsTheTorchHandlesTypeOrTheKind() throws IOException {
        assertEquals("c", InteropFigures.alloc(DescriptorJson.fromJson(golden("torch-c.json"))));
        assertEquals("e", InteropFigures.alloc(DescriptorJson.fromJson(golden("torch-e.json"))));
        assertEquals("pool", InteropFigures.alloc(DescriptorJson.fromJson(golden("pool-fd.json"))));
    }
}
