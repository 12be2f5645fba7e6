package org.cudaipc4j.cli.interop;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;

/**
 * What {@code interop describe} prints: the fields of an {@link InteropInput}, in order, under their JSON names
 * (snake_case). Absent fields are left out; {@link #text()} gives the lines of the text form.
 */
final class Description {
    private final Map<String, Object> fields = new LinkedHashMap<>();
    private final Map<String, String> text = new LinkedHashMap<>();

    private Description() {}

    /** The description of {@code input}. */
    static Description of(InteropInput input) {
        Description d = new Description();
        switch (input) {
            case InteropInput.Json j -> d.descriptor(j);
            case InteropInput.Handle h -> d.bareHandle(h.handle());
        }
        return d;
    }

    /** The fields by JSON name: strings, numbers, booleans and lists of numbers. */
    Map<String, Object> fields() {
        return fields;
    }

    /** The text lines' labels and values, in order. */
    Map<String, String> text() {
        return text;
    }

    private void put(String key, Object json, String label, String shown) {
        fields.put(key, json);
        text.put(label, shown);
    }

    private void put(String key, Object json, String label) {
        put(key, json, label, String.valueOf(json));
    }

    private void descriptor(InteropInput.Json j) {
        Descriptor d = j.descriptor();
        put("source", "descriptor", "source", "descriptor (" + j.source() + ")");
        TorchHandle handle = null;
        if (d.kind() == Descriptor.Kind.TORCH) {
            byte[] h = d.torch().handle();
            handle = h == null ? null : TorchHandle.parse(h); // checked by the descriptor's reader already
            kind(handle);
        } else {
            put("kind", d.kind().code(), "kind");
        }
        put("format", j.version(), "format");
        if (handle != null) {
            handleVersion(handle);
        }
        if (d.deviceUuid() != null) {
            put("device_uuid", DescriptorJson.uuidString(d.deviceUuid()), "device");
        } else {
            text.put("device", "not given (open takes the device from --device)");
        }
        put("bytes", d.bytes(), "size", d.bytes() + " bytes");
        long offset = d.kind() == Descriptor.Kind.TORCH ? d.torch().storageOffsetBytes() : 0;
        put("offset", offset, "offset", offset + " bytes" + (d.kind() == Descriptor.Kind.TORCH
                ? " (the storage's start in the block torch's handle maps)" : ""));
        tensor(d.tensor());
        boolean event = d.event() != null && d.event().waitRequired();
        put("event", event, "event", event ? "yes (the reader waits on it)" : "no");
        put("producer_pid", d.exporter().pid(), "producer pid");
        if (d.exporter().pidNamespace() != 0) {
            put("pid_namespace", d.exporter().pidNamespace(), "pid namespace");
        }
        put("export_id", d.exporter().exportId(), "export id");
        if (d.exporter().holders() != null) {
            put("holders", d.exporter().holders(), "holder table");
        }
        switch (d.kind()) {
            case VMM, POOL -> {
                put("handle_type", d.handleType().code(), "handle type");
                if (d.handleType() == Descriptor.HandleType.POSIX_FD) {
                    put("fds", d.fds(), "fds", d.fds() + " (travel beside the descriptor)");
                    if (d.fdNumbers() != null) {
                        put("fd_numbers", longs(d.fdNumbers()), "fd numbers",
                                Arrays.toString(d.fdNumbers()) + " (the exporter's, for pidfd_getfd)");
                    }
                }
                if (d.kind() == Descriptor.Kind.POOL) {
                    put("pool_id", d.poolId(), "pool id");
                }
            }
            case TORCH -> {
                Descriptor.Torch t = d.torch();
                if (t.refCounterFile() != null) {
                    put("ref_counter_file", t.refCounterFile(), "counter file");
                    put("ref_counter_slot", t.refCounterOffset(), "counter slot");
                }
                put("device_index", t.deviceIndex(), "device index", t.deviceIndex() + " (the producer's ordinal)");
                if (handle != null) {
                    chunks(handle);
                }
            }
            case LEGACY -> { }
        }
    }

    private void bareHandle(TorchHandle h) {
        put("source", "torch handle", "source", "torch handle (" + h.bytes().length + " bytes)");
        kind(h);
        handleVersion(h);
        text.put("device", "not in the handle (open takes it from --device)");
        if (h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT) {
            put("bytes", h.mappedBytes(), "size", h.mappedBytes() + " bytes (the chunks the handle maps)");
        } else {
            text.put("size", "not in the handle (open maps the whole block of torch's caching allocator)");
        }
        text.put("offset", "not in the handle (torch sends storage_offset_bytes beside it)");
        put("event", false, "event", "no (torch sends its event beside the handle)");
        if (h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT) {
            put("producer_pid", (long) h.producerPid(), "producer pid");
            chunks(h);
        }
    }

    private void kind(TorchHandle h) {
        if (h == null) {
            put("kind", "torch-empty", "kind", "torch, an empty storage (no handle)");
        } else if (h.type() == TorchHandle.Type.CUDA_MALLOC) {
            put("kind", "torch-c", "kind", "torch legacy 'c'");
        } else {
            put("kind", "torch-e", "kind", "torch expandable 'e'");
        }
    }

    private void handleVersion(TorchHandle h) {
        put("handle_version", h.version() == 0 ? "raw" : Integer.toString(h.version()), "handle version",
                h.version() == 0 ? "raw (64 bytes, torch <= 2.4)" : h.version() + versionNote(h.version()));
    }

    private static String versionNote(int v) {
        return switch (v) {
            case 1 -> " (torch 2.5, 2.6)";
            case 2 -> " (torch 2.8 to 2.12)";
            default -> " (torch 2.13 on)";
        };
    }

    private void chunks(TorchHandle h) {
        if (h.type() != TorchHandle.Type.EXPANDABLE_SEGMENT) {
            return;
        }
        put("chunks", h.chunkCount(), "chunks", h.chunkCount() + " of " + h.segmentSize() + " bytes as "
                + (h.chunkKind() == TorchHandle.ChunkKind.POSIX_FD ? "file descriptors " + Arrays.toString(h.fds())
                : "fabric handles"));
        fields.put("chunk_bytes", h.segmentSize());
        fields.put("chunk_kind", h.chunkKind() == TorchHandle.ChunkKind.POSIX_FD ? "posix_fd" : "fabric");
    }

    private void tensor(TensorLayout t) {
        if (t == null) {
            return;
        }
        put("dtype", t.dtype().stableName(), "dtype");
        put("shape", longs(t.shape()), "shape", shape(t.shape()));
        put("strides", longs(t.strides()), "strides", shape(t.strides()));
        put("tensor_offset", t.offset(), "tensor offset", t.offset() + " elements");
    }

    private static List<Long> longs(long[] a) {
        return Arrays.stream(a).boxed().toList();
    }

    private static List<Long> longs(int[] a) {
        return Arrays.stream(a).asLongStream().boxed().toList();
    }

    /** {@code [1024,4]}: one word, so that a line of {@code open} splits on spaces. */
    static String shape(long[] a) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < a.length; i++) {
            s.append(i == 0 ? "" : ",").append(a[i]);
        }
        return s.append(']').toString();
    }
}
