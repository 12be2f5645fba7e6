package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.testing.TensorBytes;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real torch producer ({@code src/test/python/torch_producer.py}) shares tensors of its caching allocator; Java
 * opens each into a view, checks the producer's sha256 of the tensor's bytes, sees a second share of an open
 * storage released at once and one block mapped once, closes, and the producer then reads every slot at 0 and
 * frees all its memory with {@code ipc_collect()}. No driver file of a process it started is left.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class TorchReaderGpuTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    @Test
    void javaReadsTorchsTensorsAndTheProducerFreesThemAfterwards() throws Exception {
        String script = producerScript();
        try (JavaProcess.Interactive producer = JavaProcess.start(List.of("python3", script))) {
            DriverFileLeaks.removeWhenEnded(producer.pid()); // torch leaves its own, even at a normal exit
            Map<String, JsonObject> lines = new LinkedHashMap<>();
            for (String line = producer.readLine(WAIT); !line.equals("shared"); line = producer.readLine(WAIT)) {
                JsonObject o = JsonParser.parseString(line).getAsJsonObject();
                lines.put(o.get("case").getAsString(), o);
            }
            String uuid = lines.values().iterator().next().get("device_uuid").getAsString();
            try (Context ctx = Context.retainPrimary(Device.byUuid(DescriptorJson.parseUuid(uuid)));
                    TorchLeases leases = TorchLeases.start()) {
                Stream stream = Stream.create(ctx, false);
                TorchReader reader = new TorchReader(ctx, leases);
                List<TorchTensorView> views = new ArrayList<>();
                for (var c : lines.entrySet()) {
                    TorchShare share = TorchCapturesTest.share(c.getValue());
                    TorchTensorView view = reader.open(share, stream);
                    views.add(view);
                    stream.synchronize();
                    assertEquals(c.getValue().get("sha256").getAsString(), sha256(view), c.getKey());
                    assertEquals(c.getKey().endsWith("-again"), view.cacheHit(), c.getKey());
                }
                assertEquals(2, views.stream().filter(v -> v.bytes() == 2048).count(), "the two bf16 tensors");
                assertTrue(reader.mappedBlocks() < lines.size() - 2, "blocks shared by tensors are mapped once: "
                        + reader.mappedBlocks());
                for (TorchTensorView v : views) {
                    v.close();
                }
                assertEquals(0, reader.mappedBlocks());
                stream.close();
            }
            producer.writeLine("done");
            JsonObject slots = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject()
                    .getAsJsonObject("slots");
            for (String k : slots.keySet()) {
                assertEquals(0, slots.get(k).getAsLong(), "slot of " + k + " given back once");
            }
            assertFalse(slots.isEmpty());
            JsonObject memory = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject();
            assertEquals(memory.get("allocated_start").getAsLong(), memory.get("allocated_after").getAsLong(),
                    "the producer freed every shared block: " + memory);
            JavaProcess.Result r = producer.finish(WAIT);
            assertEquals(0, r.exitCode(), r.describe());
        }
    }

    /**
     * Better than torch: a Java reader killed (SIGKILL) while it holds torch's shares has them given back by its
     * lease watcher within 5 s, and the producer frees every block.
     */
    @Test
    void aKilledJavaReadersSharesComeBackAndTheProducerFreesThem() throws Exception {
        String script = producerScript();
        try (JavaProcess.Interactive producer = JavaProcess.start(List.of("python3", script))) {
            DriverFileLeaks.removeWhenEnded(producer.pid()); // torch leaves its own, even at a normal exit
            List<String> shares = new ArrayList<>();
            for (String line = producer.readLine(WAIT); !line.equals("shared"); line = producer.readLine(WAIT)) {
                shares.add(line);
            }
            try (JavaProcess.Interactive reader = JavaProcess.start(JavaProcess.command(TorchReaderChild.class,
                    List.of()))) {
                DriverFileLeaks.removeWhenEnded(reader.pid()); // killed below
                for (String s : shares) {
                    reader.writeLine(s);
                }
                reader.writeLine("end");
                assertEquals("opened " + shares.size(), reader.readLine(WAIT));
                List<TorchShare> held = new ArrayList<>();
                for (String s : shares) {
                    TorchShare share = TorchCapturesTest.share(JsonParser.parseString(s).getAsJsonObject());
                    if (!share.isEmpty()) {
                        held.add(share);
                    }
                }
                long heldNow = held.stream().filter(s -> slot(s) > 0).count();
                assertEquals(held.size() - 1, heldNow, "every share held but the hit, given back at once");
                assertTrue(ProcessHandle.of(reader.pid()).orElseThrow().destroyForcibly(), "SIGKILL sent");
                assertTrue(Waits.until(5_000, () -> held.stream().allMatch(s -> slot(s) == 0)),
                        "the watcher gave every slot back within 5 s");
            }
            producer.writeLine("done");
            JsonObject slots = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject()
                    .getAsJsonObject("slots");
            for (String k : slots.keySet()) {
                assertEquals(0, slots.get(k).getAsLong(), "slot of " + k);
            }
            JsonObject memory = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject();
            assertEquals(memory.get("allocated_start").getAsLong(), memory.get("allocated_after").getAsLong(),
                    "the producer freed every shared block: " + memory);
            assertEquals(0, producer.finish(WAIT).exitCode());
        }
    }

    /** The share's slot as its counter file holds it now, read without touching the file's process count. */
    static long slot(TorchShare s) {
        try (TorchCounterFile f = TorchCounterFile.open(TorchCounterFile.DEFAULT_DIRECTORY, s.refCounterFile())) {
            return f.slot(s.refCounterSlot());
        }
    }

    /** sha256 of the tensor's elements in row-major order, as torch's {@code contiguous()} lays them out. */
    static String sha256(TorchTensorView view) {
        TensorLayout l = view.layout();
        byte[] storage = l.elementCount() == 0 ? new byte[0] : view.read(0, (int) l.extentBytes());
        return TensorBytes.sha256(storage, l.dtype().elementSize(), l.offset(), l.shape(), l.strides());
    }

    /** The torch producer script, once python3 is shown to use torch on CUDA here (else the test is skipped). */
    static String producerScript() {
        var root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not inside the checkout");
        JavaProcess.Result probe = JavaProcess.runCommand(WAIT, List.of("python3", "-c", "import torch;"
                + " assert torch.cuda.is_available()"));
        Assumptions.assumeTrue(probe.exitCode() == 0, () -> "skipped: python3 cannot use torch on CUDA: "
                + probe.stderr().strip());
        return root.get().resolve("cudaipc4j-interop/src/test/python/torch_producer.py").toString();
    }
}
