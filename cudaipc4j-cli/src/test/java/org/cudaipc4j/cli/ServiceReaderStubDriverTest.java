package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.cudaipc4j.bench.ServiceReader;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.torch.TorchCounterFile;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.StubLibraries;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link ServiceReader} on the stub driver of {@code scripts/stub-driver} (no GPU): the scale case on torch shares
 * laid out as torch's producer lays them out (a counter file in {@code /dev/shm}, legacy handles, two tensors a block),
 * whose line says where its time went from its exec to the open, and every slot it took is given back; and the pool
 * case, a memory-pool export whose descriptor the reader takes from its exporter ({@link StubPoolExporterChild}) by
 * number.
 */
class ServiceReaderStubDriverTest {
    /** The stub's device ({@code cuDeviceGetUuid_v2}: bytes 0 to 15). */
    private static final UUID STUB_GPU = new UUID(0x0001_0203_0405_0607L, 0x0809_0a0b_0c0d_0e0fL);
    private static final int TENSORS = 6;
    private static final long BYTES = 4096;

    @Test
    void itSaysWhereItsTimeWentFromItsExecAndGivesEverySlotBack(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        Path counter = counterFile();
        try {
            Path shares = shares(tmp, counter);
            long exec = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120), JavaProcess.command(
                    ServiceReader.class, List.of(), shares.toString(), Long.toString(exec)),
                    Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
            assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
            JsonObject o = JsonParser.parseString(r.stdout().strip()).getAsJsonObject();
            assertEquals(TENSORS, o.get("tensors").getAsInt(), r.stdout());
            assertEquals(3, o.get("blocks").getAsInt(), "two tensors a block: " + r.stdout());
            double stages = 0;
            for (String stage : List.of("jvm_start_us", "read_us", "leases_wait_us", "driver_wait_us", "context_us",
                    "prepare_us", "open_us")) {
                assertTrue(o.has(stage) && o.get(stage).getAsDouble() >= 0, stage + " in " + r.stdout());
                stages += o.get(stage).getAsDouble();
            }
            // The stages follow one another from the exec to the last open (the start's clock less the test's).
            assertTrue(o.get("exec_to_open_us").getAsDouble() >= stages - 1_000, r.stdout());
            ByteBuffer after = ByteBuffer.wrap(Files.readAllBytes(counter)).order(ByteOrder.nativeOrder());
            for (int i = 0; i < TENSORS; i++) {
                assertEquals(0, after.getLong(TorchCounterFile.HEADER_BYTES + 8 * i), "slot " + i + " given back");
            }
            assertEquals(1, after.getInt(0), "the process count is never touched");
        } finally {
            Files.deleteIfExists(counter);
        }
    }

    @Test
    void itImportsAPoolExportTimedFromItsExec(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        long namespace = ((Number) Files.getAttribute(Path.of("/proc/self/ns/pid"), "unix:ino")).longValue();
        try (JavaProcess.Interactive exporter = JavaProcess.start(JavaProcess.command(StubPoolExporterChild.class,
                List.of()))) {
            String[] ready = exporter.readLine(Duration.ofSeconds(60)).split(" ");
            assertEquals("ready", ready[0], String.join(" ", ready));
            byte[] pointerExport = new byte[64];
            pointerExport[0] = 5;
            Descriptor d = Descriptor.poolFd(STUB_GPU, BYTES, new Descriptor.Exporter(Long.parseLong(ready[1]),
                    namespace, 12), 3, pointerExport).withFdNumbers(Integer.parseInt(ready[2]));
            Path file = Files.writeString(tmp.resolve("pool.jsonl"), DescriptorJson.toJson(d) + "\n");
            long exec = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120), JavaProcess.command(
                    ServiceReader.class, List.of(), "pool", file.toString(), Long.toString(exec)),
                    Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
            assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
            JsonObject o = JsonParser.parseString(r.stdout().strip()).getAsJsonObject();
            assertEquals("pool", o.get("case").getAsString(), r.stdout());
            assertEquals("java", o.get("impl").getAsString(), "no AOT cache, no java-aot: " + r.stdout());
            double stages = 0;
            for (String stage : List.of("jvm_start_us", "read_us", "leases_wait_us", "driver_wait_us", "context_us",
                    "first_open_us")) {
                assertTrue(o.has(stage) && o.get(stage).getAsDouble() >= 0, stage + " in " + r.stdout());
                stages += o.get(stage).getAsDouble();
            }
            assertTrue(o.get("exec_to_open_us").getAsDouble() >= stages - 1_000, r.stdout());
            for (String phase : List.of("pidfd_us", "pool_import_us", "pointer_import_us")) {
                assertTrue(o.has(phase), phase + " in " + r.stdout());
            }
            assertEquals(0, exporter.finish(Duration.ofSeconds(30)).exitCode(), "the exporter's exit");
        }
    }

    @Test
    void thePoolFormTakesOnePoolExport(@TempDir Path tmp) throws Exception {
        Path torch = tmp.resolve("torch.jsonl");
        Path counter = counterFile();
        try {
            Files.copy(shares(tmp, counter), torch);
            for (List<String> args : List.of(List.of("pool", torch.toString(), "1765000000123456"),
                    List.of("pool", torch.toString(), "x.jsonl", "1765000000123456"), List.of("pool", "1"))) {
                JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(60), JavaProcess.command(
                        ServiceReader.class, List.of(), args.toArray(String[]::new)));
                assertEquals(ExitCodes.USAGE, r.exitCode(), r.describe());
                assertEquals(1, r.stderr().strip().lines().count(), r.describe());
                assertTrue(r.stderr().startsWith("service reader: "), r.describe());
            }
        } finally {
            Files.deleteIfExists(counter);
        }
    }

    /** A counter file as torch's producer leaves it, {@link #TENSORS} slots held, in {@code /dev/shm}. */
    private static Path counterFile() throws Exception {
        String name = "torch_" + ProcessHandle.current().pid() + "_"
                + Integer.toUnsignedString(ThreadLocalRandom.current().nextInt()) + "_0";
        ByteBuffer b = ByteBuffer.allocate((int) TorchCounterFile.FILE_BYTES).order(ByteOrder.nativeOrder());
        b.putInt(0, 1); // the producer's process count, as torch leaves it
        for (int i = 0; i < TENSORS; i++) {
            b.putLong(TorchCounterFile.HEADER_BYTES + 8 * i, 1);
        }
        return Files.write(Path.of("/dev/shm", name), b.array());
    }

    /** A descriptor file of {@link #TENSORS} shares of the stub's device, two a block, slots in {@code counter}. */
    private static Path shares(Path tmp, Path counter) throws Exception {
        long pid = ProcessHandle.current().pid();
        String name = "/" + counter.getFileName();
        long namespace = ((Number) Files.getAttribute(Path.of("/proc/self/ns/pid"), "unix:ino")).longValue();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < TENSORS; i++) {
            byte[] handle = new byte[66]; // torch's version 2 'c' handle: version, type, the 64 bytes
            handle[0] = 2;
            handle[1] = 'c';
            byte[] event = new byte[64];
            for (int k = 0; k < 64; k++) {
                handle[2 + k] = (byte) ((i / 2) * 7 + k + 1);
                event[k] = (byte) (i * 13 + k + 1);
            }
            Descriptor d = Descriptor.torch(STUB_GPU, new Descriptor.Exporter(pid, namespace, i),
                    new Descriptor.Torch(handle, BYTES, (i % 2) * BYTES, name, i, 0))
                    .withTensor(TensorLayout.contiguous(DType.UINT8, BYTES))
                    .withEvent(new Descriptor.Event(event, true));
            lines.add(DescriptorJson.toJson(d));
        }
        return Files.write(tmp.resolve("scale.jsonl"), lines);
    }

    @Test
    void withoutADriverItIsWaivedInTheToolsOneLine(@TempDir Path tmp) throws Exception {
        Path counter = counterFile();
        try {
            Path shares = shares(tmp, counter);
            long exec = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120), JavaProcess.command(
                    ServiceReader.class, List.of("-Dcudaipc4j.libcuda=" + tmp.resolve("no-such-libcuda.so.1")),
                    shares.toString(), Long.toString(exec)));
            assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
            assertEquals(1, r.stderr().strip().lines().count(), r.describe());
            assertTrue(r.stderr().startsWith(Failures.WAIVED_PREFIX + "service reader: "), r.describe());
            assertEquals("", r.stdout(), r.describe());
        } finally {
            Files.deleteIfExists(counter);
        }
    }

    @Test
    void aBadCommandLineIsOneLineAndExit64(@TempDir Path tmp) throws Exception {
        Path none = tmp.resolve("none.jsonl");
        for (List<String> args : List.of(List.<String>of(), List.of(none.toString()), List.of(none.toString(), "12x"),
                List.of(none.toString(), "1765000000123456"))) {
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(60), JavaProcess.command(
                    ServiceReader.class, List.of(), args.toArray(String[]::new)));
            assertEquals(ExitCodes.USAGE, r.exitCode(), r.describe());
            assertEquals(1, r.stderr().strip().lines().count(), r.describe());
            assertTrue(r.stderr().startsWith("service reader: "), r.describe());
        }
    }
}
