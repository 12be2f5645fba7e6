package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.interop.torch.TorchShare;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code cudaipc4j interop open} on what a real torch producer shares (the interop module's
 * {@code src/test/python/torch_producer.py}: the caching allocator's {@code 'c'} handles, strided and stride-0
 * views, bf16, bool, fp8, an empty tensor, a second share of an open storage): each share as a descriptor opened by
 * the tool in its own process prints the producer's own sha256 of the tensor; a bare handle opens on its device; the
 * producer then reads every slot at 0 and frees all its memory.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class InteropOpenGpuTest {
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void theToolPrintsTheProducersSha256ForEveryShareAndGivesEverySlotBack() {
        String script = producerScript();
        try (JavaProcess.Interactive producer = JavaProcess.start(List.of("python3", script))) {
            DriverFileLeaks.removeWhenEnded(producer.pid()); // torch leaves its own, even at a normal exit
            List<JsonObject> shares = new ArrayList<>();
            for (String line = producer.readLine(WAIT); !line.equals("shared"); line = producer.readLine(WAIT)) {
                shares.add(JsonParser.parseString(line).getAsJsonObject());
            }
            assertFalse(shares.isEmpty());
            String bareHandle = null;
            String uuid = null;
            for (int i = 0; i < shares.size(); i++) {
                JsonObject s = shares.get(i);
                uuid = s.get("device_uuid").getAsString();
                Descriptor d = share(s).toDescriptor(DescriptorJson.parseUuid(uuid),
                        new Descriptor.Exporter(producer.pid(), 0, i));
                JavaProcess.Result r = JavaProcess.run(WAIT, Main.class, List.of(), "interop", "open",
                        DescriptorJson.toJson(d));
                String name = s.get("case").getAsString();
                assertEquals(ExitCodes.OK, r.exitCode(), name + ": " + r.describe());
                assertEquals("0 " + s.get("dtype").getAsString() + " " + s.get("shape").toString().replace(" ", "")
                        + " " + s.get("sha256").getAsString() + "\n", r.stdout(), name + ": " + r.describe());
                if (bareHandle == null && !s.get("handle").isJsonNull()) {
                    bareHandle = s.get("handle").getAsString();
                }
            }
            // A bare handle (no size, offset or layout): the whole block of torch's caching allocator as uint8.
            int ordinal = Device.byUuid(DescriptorJson.parseUuid(uuid)).ordinal();
            JavaProcess.Result bare = JavaProcess.run(WAIT, Main.class, List.of(), "interop", "open", "--device",
                    Integer.toString(ordinal), bareHandle);
            assertEquals(ExitCodes.OK, bare.exitCode(), bare.describe());
            assertTrue(bare.stdout().matches("0 uint8 \\[[1-9][0-9]*] [0-9a-f]{64}\n"), bare.describe());

            producer.writeLine("done");
            JsonObject slots = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject()
                    .getAsJsonObject("slots");
            assertFalse(slots.isEmpty());
            for (String k : slots.keySet()) {
                assertEquals(0, slots.get(k).getAsLong(), "slot of " + k + " given back by the tool");
            }
            JsonObject memory = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject();
            assertEquals(memory.get("allocated_start").getAsLong(), memory.get("allocated_after").getAsLong(),
                    "the producer freed every shared block: " + memory);
            assertEquals(0, producer.finish(WAIT).exitCode());
        }
    }

    /** A line of the producer as torch's share (the fields of rebuild_cuda_tensor). */
    private static TorchShare share(JsonObject o) {
        boolean empty = o.get("handle").isJsonNull();
        boolean sync = !o.get("event_sync_required").isJsonNull() && o.get("event_sync_required").getAsBoolean();
        JsonElement event = o.get("event_handle");
        TensorLayout t = TensorLayout.of(DType.of(o.get("dtype").getAsString()), longs(o, "shape"),
                longs(o, "strides"), o.get("offset").getAsLong());
        return new TorchShare(o.get("device_index").getAsInt(),
                empty ? null : TorchHandle.parse(HEX.parseHex(o.get("handle").getAsString())),
                o.get("storage_bytes").getAsLong(), o.get("storage_offset_bytes").getAsLong(),
                empty ? null : o.get("ref_counter_file").getAsString(),
                empty ? -1 : o.get("ref_counter_offset").getAsLong(),
                event.isJsonNull() || !sync ? null : HEX.parseHex(event.getAsString()), sync, t);
    }

    private static long[] longs(JsonObject o, String field) {
        return o.getAsJsonArray(field).asList().stream().mapToLong(JsonElement::getAsLong).toArray();
    }

    /** The interop module's torch producer, once python3 is shown to use torch on CUDA (else skipped). */
    private static String producerScript() {
        Path root = ProjectRoot.find().orElse(null);
        Assumptions.assumeTrue(root != null, "skipped: not inside the checkout");
        JavaProcess.Result probe = JavaProcess.runCommand(WAIT, List.of("python3", "-c", "import torch;"
                + " assert torch.cuda.is_available()"));
        Assumptions.assumeTrue(probe.exitCode() == 0, () -> "skipped: python3 cannot use torch on CUDA: "
                + probe.stderr().strip());
        return root.resolve("cudaipc4j-interop/src/test/python/torch_producer.py").toString();
    }
}
