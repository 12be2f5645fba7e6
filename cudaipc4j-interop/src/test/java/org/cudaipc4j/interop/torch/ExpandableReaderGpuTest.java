package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * torch's expandable segments ({@code PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True}, handle type {@code 'e'})
 * read by Java from a real torch producer ({@code src/test/python/torch_producer.py expandable}): every tensor
 * checked against the producer's sha256, the chunks under one block mapped once, slots held while open and given
 * back on close, the producer's memory freed by {@code ipc_collect()}; a reader in another PID namespace refused
 * with the one line that says so; a descriptor naming an absent GPU refused.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class ExpandableReaderGpuTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * The producer with expandable segments in its environment, sharing the cases of its mode (the first of
     * {@code modeAndArguments}); its driver files are removed once it has ended (torch leaves its own, even at a
     * normal exit).
     */
    static JavaProcess.Interactive producer(String... modeAndArguments) {
        List<String> command = new ArrayList<>(List.of("env", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                "python3", TorchReaderGpuTest.producerScript()));
        command.addAll(List.of(modeAndArguments));
        JavaProcess.Interactive p = JavaProcess.start(command);
        DriverFileLeaks.removeWhenEnded(p.pid());
        return p;
    }

    /** The producer's share lines up to {@code shared}, by case. */
    static Map<String, JsonObject> shares(JavaProcess.Interactive producer) {
        Map<String, JsonObject> lines = new LinkedHashMap<>();
        for (String line = producer.readLine(WAIT); !line.equals("shared"); line = producer.readLine(WAIT)) {
            JsonObject o = JsonParser.parseString(line).getAsJsonObject();
            lines.put(o.get("case").getAsString(), o);
        }
        return lines;
    }

    /** Tells the producer to free everything; checks every slot is 0 and its memory back to where it started. */
    static void producerFreesEverything(JavaProcess.Interactive producer) {
        producer.writeLine("done");
        JsonObject slots = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject().getAsJsonObject("slots");
        assertFalse(slots.isEmpty());
        for (String k : slots.keySet()) {
            assertEquals(0, slots.get(k).getAsLong(), "slot of " + k + " given back once");
        }
        JsonObject memory = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject();
        assertEquals(memory.get("allocated_start").getAsLong(), memory.get("allocated_after").getAsLong(),
                "the producer freed every shared block: " + memory);
        JavaProcess.Result r = producer.finish(WAIT);
        assertEquals(0, r.exitCode(), r.describe());
    }

    @Test
    void javaReadsTensorsOfExpandableSegmentsAndTheProducerFreesThemAfterwards() throws Exception {
        try (JavaProcess.Interactive producer = producer("expandable")) {
            Map<String, JsonObject> lines = shares(producer);
            String uuid = lines.values().iterator().next().get("device_uuid").getAsString();
            Map<String, TorchShare> byCase = new LinkedHashMap<>();
            Set<String> blocks = new HashSet<>();
            for (var c : lines.entrySet()) {
                TorchShare s = TorchCapturesTest.share(c.getValue());
                byCase.put(c.getKey(), s);
                if (!s.isEmpty()) {
                    assertEquals(TorchHandle.Type.EXPANDABLE_SEGMENT, s.handle().type(), c.getKey()
                            + ": the producer did not use expandable segments: " + s.handle().describe());
                    assertEquals(TorchHandle.ChunkKind.POSIX_FD, s.handle().chunkKind(), c.getKey());
                    blocks.add(TorchReader.blockKey(s.handle()));
                }
            }
            assertTrue(byCase.get("large-float32-spanning-chunks").handle().chunkCount() >= 3,
                    "48 MiB span several 20 MiB chunks: " + byCase.get("large-float32-spanning-chunks"));
            assertEquals(byCase.get("small-bf16-first").handle().mappingKey(),
                    byCase.get("small-bf16-second").handle().mappingKey(), "small tensors share the 2 MiB chunk");
            try (Context ctx = Context.retainPrimary(Device.byUuid(DescriptorJson.parseUuid(uuid)));
                    TorchLeases leases = TorchLeases.start()) {
                Stream stream = Stream.create(ctx, false);
                TorchReader reader = new TorchReader(ctx, leases);
                List<TorchTensorView> views = new ArrayList<>();
                for (var c : byCase.entrySet()) {
                    TorchTensorView view = reader.open(c.getValue(), stream);
                    views.add(view);
                    stream.synchronize();
                    assertEquals(lines.get(c.getKey()).get("sha256").getAsString(), TorchReaderGpuTest.sha256(view),
                            c.getKey());
                    assertEquals(c.getKey().endsWith("-again"), view.cacheHit(), c.getKey());
                }
                assertEquals(blocks.size(), reader.mappedBlocks(), "one mapping per block of chunks");
                assertTrue(blocks.size() < byCase.size() - 4, "tensors in the same chunks are mapped once: "
                        + blocks.size() + " blocks for " + byCase.size() + " shares");
                for (var c : byCase.entrySet()) {
                    if (!c.getValue().isEmpty()) {
                        assertEquals(c.getKey().endsWith("-again") ? 0 : 1, TorchReaderGpuTest.slot(c.getValue()),
                                "slot of " + c.getKey() + " while its view is open");
                    }
                }
                for (TorchTensorView v : views) {
                    v.close();
                }
                assertEquals(0, reader.mappedBlocks());
                for (var c : byCase.entrySet()) {
                    if (!c.getValue().isEmpty()) {
                        assertEquals(0, TorchReaderGpuTest.slot(c.getValue()), "slot of " + c.getKey()
                                + " after close");
                    }
                }
                stream.close();
            }
            producerFreesEverything(producer);
        }
    }

    /**
     * The reader in its own PID namespace ({@code unshare --pid}, as a container without {@code --pid=host}): the
     * producer's pid means nothing there, and the refusal says so in one line; the share's slot goes back.
     */
    @Test
    void aReaderInAnotherPidNamespaceIsRefusedWithOneLine() throws Exception {
        boolean root = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        List<String> unshare = root ? List.of("unshare", "--pid", "--fork", "--kill-child", "--mount-proc")
                : List.of("unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc");
        JavaProcess.Result probe = JavaProcess.runCommand(WAIT, concat(unshare, List.of("true")));
        Assumptions.assumeTrue(probe.exitCode() == 0,
                "unshare --pid is refused here (needs root, or user namespaces for others): " + probe.describe());
        try (JavaProcess.Interactive producer = producer("one")) {
            JsonObject line = shares(producer).values().iterator().next();
            TorchShare share = TorchCapturesTest.share(line);
            int pid = share.handle().producerPid();
            assertEquals(producer.pid(), pid, "the handle names the producer");
            try (JavaProcess.Interactive reader = JavaProcess.start(concat(unshare,
                    JavaProcess.command(ExpandableReaderChild.class, List.of())))) {
                reader.writeLine(line.toString());
                String answer = reader.readLine(WAIT);
                assertEquals("REFUSED cannot open torch's expandable segment shared by pid " + pid + ": pidfd_open("
                        + pid + ") failed: no process " + pid + " here: the producer has exited, or it runs in"
                        + " another PID namespace (a container, unshare), where its pid means nothing here; a reader"
                        + " of expandable segments must share the producer's PID namespace (e.g. docker --pid=host"
                        + " or --pid=container:<producer>); or share from a producer with"
                        + " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False", answer);
                JavaProcess.Result r = reader.finish(WAIT);
                assertEquals(0, r.exitCode(), r.describe());
            }
            assertEquals(0, TorchReaderGpuTest.slot(share), "the refused share's slot went back");
            producerFreesEverything(producer);
        }
    }

    /** A torch descriptor naming a GPU this process cannot see is refused in one line listing the visible ones. */
    @Test
    void aDescriptorWhoseDeviceIsAbsentIsRefusedInOneLine() {
        List<Device> visible = Device.all();
        assertFalse(visible.isEmpty());
        UUID absent = new UUID(0x0123456789abcdefL, 0x0123456789abcdefL);
        assertTrue(visible.stream().noneMatch(d -> d.uuid().equals(absent)));
        Descriptor d = DescriptorJson.fromJson("{\"cudaipc4j_descriptor\":\"1.0\",\"kind\":\"torch\",\"device_uuid\":\""
                + DescriptorJson.uuidString(absent) + "\",\"bytes\":8388608,\"exporter\":{\"pid\":459,"
                + "\"pid_namespace\":0,\"export_id\":7},\"torch\":{\"handle\":"
                + "\"0265cb01000000000000000040010000000001000000000000002d000000\",\"storage_bytes\":8388608,"
                + "\"storage_offset_bytes\":2097152,\"ref_counter_file\":\"/torch_459_1234567_0\","
                + "\"ref_counter_offset\":1,\"device_index\":0}}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Device.byUuid(d.deviceUuid()));
        String line = e.getMessage();
        assertFalse(line.contains("\n"), line);
        assertTrue(line.startsWith("no visible CUDA device has UUID " + DescriptorJson.uuidString(absent)
                + " (visible: 0: " + DescriptorJson.uuidString(visible.getFirst().uuid())), line);
        assertTrue(line.endsWith("is CUDA_VISIBLE_DEVICES different here?)"), line);
        Device first = visible.getFirst();
        assertEquals(first.ordinal(), Device.byUuid(first.uuid()).ordinal(), "a present UUID resolves");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
