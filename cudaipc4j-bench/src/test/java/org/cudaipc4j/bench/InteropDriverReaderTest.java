package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.cudaipc4j.testing.CudaToolkit;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.testing.StubLibraries;
import org.cudaipc4j.testing.Toolchain;
import org.cudaipc4j.testing.ToolchainTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale part's C program ({@code scripts/interop_driver_reader.c}), which {@code scripts/interop-bench.sh} builds
 * on the GPU machine: it compiles against the toolkit's {@code cuda.h}, and on the stub driver it opens each block of
 * a line file once, prints its JSON line and gives every share's slot back, leaving the counter file's process count
 * alone. Runs wherever {@code cuda.h} and a C compiler are, no GPU needed.
 */
@ToolchainTest(Toolchain.CUDA_H)
class InteropDriverReaderTest {
    private static final String SOURCE = "scripts/interop_driver_reader.c";
    /** The stub driver's device 0: UUID bytes 0 to 15. */
    private static final String DEVICE = "000102030405060708090a0b0c0d0e0f";

    @TempDir
    Path dir;

    private Path build() throws IOException, InterruptedException {
        Path root = ProjectRoot.find().orElseThrow(() -> new AssertionError("not inside the checkout"));
        Path header = CudaToolkit.header("cuda.h").orElseThrow(
                () -> new AssertionError(CudaToolkit.headerMissing("cuda.h")));
        StubLibraries.build(StubLibraries.CUDA_DRIVER, dir.resolve("libcuda.so.1"), "-Wl,-soname,libcuda.so.1");
        Path exe = dir.resolve("interop-driver-reader");
        List<String> cc = List.of("cc", "-O2", "-Wall", "-I", header.getParent().toString(), "-o", exe.toString(),
                root.resolve(SOURCE).toString(), "-L", dir.toString(), "-l:libcuda.so.1");
        JavaProcess.Result r;
        try {
            r = JavaProcess.runCommand(java.time.Duration.ofSeconds(120), cc);
        } catch (RuntimeException e) {
            Assumptions.abort("skipped: no C compiler (cc) to build " + SOURCE + ": " + e.getMessage());
            throw e;
        }
        assertEquals(0, r.exitCode(), "cc failed: " + cc + "\n" + r.stdout() + r.stderr());
        return exe;
    }

    private static String handle(int block) {
        byte[] h = new byte[66];
        h[0] = 2;
        h[1] = 'c';
        for (int i = 2; i < h.length; i++) {
            h[i] = (byte) (block * 7 + i);
        }
        return HexFormat.of().formatHex(h);
    }

    private JavaProcess.Result run(Path exe, Path lines) {
        List<String> command = List.of(exe.toString(), lines.toString(), Long.toString(InteropFigures.epochMicros()));
        return JavaProcess.runCommand(java.time.Duration.ofSeconds(60), command,
                java.util.Map.of("LD_LIBRARY_PATH", dir.toString()));
    }

    @Test
    void opensEachBlockOnceAndGivesEverySlotBack() throws IOException, InterruptedException {
        Path exe = build();
        String name = "/torch_" + ProcessHandle.current().pid() + "_" + ThreadLocalRandom.current().nextInt(1 << 30)
                + "_0";
        Path counters = Path.of("/dev/shm" + name);
        ByteBuffer file = ByteBuffer.allocate(64 + 8 * 10000).order(ByteOrder.LITTLE_ENDIAN);
        file.putInt(0, 1);
        for (int slot = 0; slot < 3; slot++) {
            file.putLong(64 + 8 * slot, 1);
        }
        Files.write(counters, file.array());
        try {
            String event = "ab".repeat(64);
            List<String> lines = new ArrayList<>();
            lines.add(String.join(" ", DEVICE, handle(1), "0", "1024", event, name, "0"));
            lines.add(String.join(" ", DEVICE, handle(1), "2048", "512", "-", name, "1"));
            lines.add(String.join(" ", DEVICE, handle(2), "0", "4096", event, name, "2"));
            Path shares = Files.write(dir.resolve("sc.jsonl.lines"), lines);
            JavaProcess.Result r = run(exe, shares);
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            JsonObject o = JsonParser.parseString(r.stdout().strip()).getAsJsonObject();
            assertEquals("c", o.get("impl").getAsString());
            assertEquals("scale", o.get("case").getAsString());
            assertEquals("c", o.get("alloc").getAsString());
            assertEquals(3, o.get("tensors").getAsInt());
            assertEquals(2, o.get("blocks").getAsInt());
            assertEquals(1024 + 512 + 4096, o.get("bytes").getAsLong());
            assertTrue(o.get("exec_to_open_us").getAsDouble() >= 0, r.stdout());
            assertTrue(o.get("open_us").getAsDouble() >= 0, r.stdout());
            ByteBuffer after = ByteBuffer.wrap(Files.readAllBytes(counters)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(1, after.getInt(0), "the process count is never touched");
            for (int slot = 0; slot < 3; slot++) {
                assertEquals(0, after.getLong(64 + 8 * slot), "slot " + slot);
            }
        } finally {
            Files.deleteIfExists(counters);
        }
    }

    @Test
    void refusesALineThatIsNotSevenFieldsInOneLine() throws IOException, InterruptedException {
        Path exe = build();
        Path shares = Files.write(dir.resolve("bad.lines"), List.of(String.join(" ", DEVICE, handle(1), "0", "1024",
                "-", "/torch_1_2_0")));
        JavaProcess.Result r = run(exe, shares);
        assertEquals(1, r.exitCode(), r.stdout() + r.stderr());
        assertTrue(r.stderr().contains("fewer than seven fields"), r.stderr());
        assertEquals("", r.stdout());
    }
}
