package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

/**
 * What torch 2.11 wrote on the GPU machine ({@code interop-golden/torch-2.11/*.json}: the arguments of torch's
 * {@code rebuild_cuda_tensor}, bytes in hex): every file reads as a {@link TorchShare} whose handle parses as
 * recorded, travels through a descriptor unchanged, and keys its storage as the reader's cache needs.
 */
class TorchCapturesTest {
    private static final HexFormat HEX = HexFormat.of();

    static Map<String, TorchShare> captures() throws IOException {
        Path dir = ProjectRoot.find().orElseThrow(() -> new AssertionError("run the tests from the checkout"))
                .resolve("interop-golden/torch-2.11");
        Map<String, TorchShare> out = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                JsonObject o = JsonParser.parseString(Files.readString(f)).getAsJsonObject();
                try {
                    out.put(f.getFileName().toString().replace(".json", ""), share(o));
                } catch (RuntimeException e) {
                    throw new AssertionError(f + ": " + e.getMessage(), e);
                }
            }
        }
        return out;
    }

    static TorchShare share(JsonObject o) {
        boolean empty = o.get("handle").isJsonNull();
        JsonElement event = o.get("event_handle");
        boolean sync = !o.get("event_sync_required").isJsonNull() && o.get("event_sync_required").getAsBoolean();
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
        List<JsonElement> a = o.getAsJsonArray(field).asList();
        return a.stream().mapToLong(JsonElement::getAsLong).toArray();
    }

    @Test
    void everyCaptureParsesAsTorchTwoElevenWroteIt() throws IOException {
        Map<String, TorchShare> all = captures();
        assertTrue(all.size() >= 20, "expected the 20 captured cases, found " + all.keySet());
        for (var c : all.entrySet()) {
            TorchShare s = c.getValue();
            if (c.getKey().endsWith("-empty")) {
                assertTrue(s.isEmpty(), c.getKey());
                assertEquals(0, s.tensor().elementCount());
            } else {
                TorchHandle h = s.handle();
                assertEquals(2, h.version(), c.getKey());
                if (c.getKey().startsWith("c-")) {
                    assertEquals(TorchHandle.Type.CUDA_MALLOC, h.type(), c.getKey());
                } else {
                    assertEquals(TorchHandle.Type.EXPANDABLE_SEGMENT, h.type(), c.getKey());
                    assertEquals(TorchHandle.ChunkKind.POSIX_FD, h.chunkKind());
                    String pid = s.refCounterFile().split("_")[1];
                    assertEquals(Long.parseLong(pid), h.producerPid(), "the producer's pid, as in its counter's name");
                }
            }
            Descriptor d = s.toDescriptor(null, new Descriptor.Exporter(4242, 0, 1));
            assertEquals(s, TorchShare.of(DescriptorJson.fromJson(DescriptorJson.toJson(d))), c.getKey());
        }
    }

    @Test
    void tensorsOfOneBlockShareTheMappingButNotTheStorage() throws IOException {
        Map<String, TorchShare> all = captures();
        for (String alloc : List.of("c", "e")) {
            TorchShare first = all.get(alloc + "-bf16-first");
            TorchShare second = all.get(alloc + "-bf16-second");
            TorchStorageKey a = TorchStorageKey.of(first);
            assertNotEquals(a, TorchStorageKey.of(second), alloc + ": two storages");
            if (alloc.equals("c")) {
                assertEquals(first.handle().mappingKey(), second.handle().mappingKey(), "one block, one mapping");
            }
            assertEquals(a, TorchStorageKey.of(first.withTensor(null)), "a second share of the storage hits");
        }
        assertNull(all.get("c-empty").handle());
    }
}
