package org.cudaipc4j.interop;

import static org.cudaipc4j.interop.JsonValues.NULL;
import static org.cudaipc4j.interop.JsonValues.bool;
import static org.cudaipc4j.interop.JsonValues.clip;
import static org.cudaipc4j.interop.JsonValues.hex;
import static org.cudaipc4j.interop.JsonValues.hex64;
import static org.cudaipc4j.interop.JsonValues.longArray;
import static org.cudaipc4j.interop.JsonValues.nonNegative;
import static org.cudaipc4j.interop.JsonValues.object;
import static org.cudaipc4j.interop.JsonValues.optional;
import static org.cudaipc4j.interop.JsonValues.required;
import static org.cudaipc4j.interop.JsonValues.string;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a {@link Descriptor} from JSON text: the format version, the kind and the fields each kind has, each checked
 * and refused in one line naming the field; see {@link DescriptorJson} for the rules.
 */
final class DescriptorJsonReader {
    private static final Pattern VERSION = Pattern.compile("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");
    /** Fields of each kind beyond the common ones, for "a field of another kind". */
    private static final List<String> KIND_FIELDS = List.of("ipc_handle", "handle_type", "fabric_handle", "fds",
            "fd_numbers", "pool_id", "pointer_export", "torch");

    private DescriptorJsonReader() {}

    /** See {@link DescriptorJson#fromJson(String)}. */
    static Descriptor fromJson(String json) {
        Map<String, Object> o = JsonValues.parseObject(json);
        Object v = o.get("cudaipc4j_descriptor");
        if (v == null) {
            throw new DescriptorFormatException("not a cudaipc4j descriptor: field 'cudaipc4j_descriptor' (the format"
                    + " version) is missing");
        }
        String version = string(v, "cudaipc4j_descriptor");
        Matcher m = VERSION.matcher(version);
        if (!m.matches()) {
            throw new DescriptorFormatException("descriptor: field 'cudaipc4j_descriptor' must be 'major.minor',"
                    + " got '" + clip(version) + "'");
        }
        int major = Integer.parseInt(m.group(1));
        if (major > Descriptor.MAJOR) {
            throw new DescriptorFormatException("descriptor format " + version + " is newer than this reader's "
                    + Descriptor.MAJOR + ".x");
        }
        if (major < Descriptor.MAJOR) {
            throw new DescriptorFormatException("descriptor format " + version + " is older than any this reader"
                    + " knows (" + Descriptor.MAJOR + ".x)");
        }
        String kindName = string(required(o, "kind", ""), "kind");
        Descriptor.Kind kind = null;
        for (Descriptor.Kind k : Descriptor.Kind.values()) {
            if (k.code().equals(kindName)) {
                kind = k;
            }
        }
        if (kind == null) {
            throw new DescriptorFormatException("descriptor: field 'kind' is '" + clip(kindName) + "', not one of"
                    + " legacy, vmm, pool, torch");
        }
        for (String f : KIND_FIELDS) {
            if (optional(o, f) != null && !belongs(kind, f)) {
                throw new DescriptorFormatException("descriptor: field '" + f + "' does not belong to kind "
                        + kind.code());
            }
        }
        try {
            Object uuid = optional(o, "device_uuid");
            UUID device = uuid != null || kind != Descriptor.Kind.TORCH
                    ? DescriptorJson.parseUuid(string(required(o, "device_uuid", ""), "device_uuid")) : null;
            long bytes = nonNegative(required(o, "bytes", ""), "bytes");
            Map<String, Object> ex = object(required(o, "exporter", ""), "exporter");
            long pid = nonNegative(required(ex, "pid", "exporter."), "exporter.pid");
            if (pid < 1 || pid > Integer.MAX_VALUE) {
                throw new DescriptorFormatException("descriptor: field 'exporter.pid' must be 1 to 2147483647, got "
                        + pid);
            }
            Object holders = optional(ex, "holders");
            Descriptor.Exporter exporter = new Descriptor.Exporter(pid,
                    nonNegative(required(ex, "pid_namespace", "exporter."), "exporter.pid_namespace"),
                    nonNegative(required(ex, "export_id", "exporter."), "exporter.export_id"),
                    holders == null ? null : string(holders, "exporter.holders"));
            Descriptor d = switch (kind) {
                case LEGACY -> Descriptor.legacy(device, bytes, exporter, hex64(required(o, "ipc_handle", ""),
                        "ipc_handle"));
                case VMM, POOL -> vmmOrPool(o, kind, device, bytes, exporter);
                case TORCH -> torch(o, device, bytes, exporter);
            };
            Object tensor = optional(o, "tensor");
            if (tensor != null) {
                d = d.withTensor(tensor(object(tensor, "tensor")));
            }
            Object event = optional(o, "event");
            if (event != null) {
                Map<String, Object> e = object(event, "event");
                d = d.withEvent(new Descriptor.Event(hex64(required(e, "ipc_handle", "event."), "event.ipc_handle"),
                        bool(required(e, "wait", "event."), "event.wait")));
            }
            return d;
        } catch (IllegalArgumentException | ArithmeticException e) {
            String msg = String.valueOf(e.getMessage());
            throw new DescriptorFormatException(msg.startsWith("descriptor") ? msg : "descriptor: " + msg);
        }
    }

    private static boolean belongs(Descriptor.Kind kind, String field) {
        return switch (kind) {
            case LEGACY -> field.equals("ipc_handle");
            case VMM -> field.equals("handle_type") || field.equals("fabric_handle") || field.equals("fds")
                    || field.equals("fd_numbers");
            case POOL -> field.equals("handle_type") || field.equals("fabric_handle") || field.equals("fds")
                    || field.equals("fd_numbers") || field.equals("pool_id") || field.equals("pointer_export");
            case TORCH -> field.equals("torch");
        };
    }

    private static Descriptor vmmOrPool(Map<String, Object> o, Descriptor.Kind kind, UUID device, long bytes,
            Descriptor.Exporter exporter) {
        String typeName = string(required(o, "handle_type", ""), "handle_type");
        Descriptor.HandleType type = null;
        for (Descriptor.HandleType t : Descriptor.HandleType.values()) {
            if (t.code().equals(typeName)) {
                type = t;
            }
        }
        if (type == null) {
            throw new DescriptorFormatException("descriptor: field 'handle_type' is '" + clip(typeName)
                    + "', not posix_fd or fabric");
        }
        byte[] fabric = null;
        int fds = 0;
        if (type == Descriptor.HandleType.FABRIC) {
            fabric = hex64(required(o, "fabric_handle", ""), "fabric_handle");
            if (optional(o, "fds") != null || optional(o, "fd_numbers") != null) {
                throw new DescriptorFormatException("descriptor: fields 'fds' and 'fd_numbers' do not belong to"
                        + " handle_type fabric");
            }
        } else {
            if (optional(o, "fabric_handle") != null) {
                throw new DescriptorFormatException("descriptor: field 'fabric_handle' does not belong to handle_type"
                        + " posix_fd");
            }
            long n = nonNegative(required(o, "fds", ""), "fds");
            if (n < 1 || n > Descriptor.MAX_FDS) {
                throw new DescriptorFormatException("descriptor: field 'fds' must be 1 to " + Descriptor.MAX_FDS
                        + ", got " + n);
            }
            fds = (int) n;
        }
        int[] numbers = null;
        Object fdNumbers = optional(o, "fd_numbers");
        if (fdNumbers != null) {
            long[] l = longArray(fdNumbers, "fd_numbers");
            numbers = new int[l.length];
            for (int i = 0; i < l.length; i++) {
                if (l[i] > Integer.MAX_VALUE) {
                    throw new DescriptorFormatException("descriptor: field 'fd_numbers[" + i + "]' must be 0 to "
                            + Integer.MAX_VALUE + ", got " + l[i]);
                }
                numbers[i] = (int) l[i];
            }
            if (numbers.length != fds) {
                throw new DescriptorFormatException("descriptor: field 'fd_numbers' has " + numbers.length
                        + " entries for fds " + fds);
            }
        }
        long poolId = -1;
        byte[] pointer = null;
        if (kind == Descriptor.Kind.POOL) {
            poolId = nonNegative(required(o, "pool_id", ""), "pool_id");
            pointer = hex64(required(o, "pointer_export", ""), "pointer_export");
        }
        return new Descriptor(kind, device, bytes, exporter, null, type, fabric, fds, numbers, poolId, pointer, null,
                null, null);
    }

    private static Descriptor torch(Map<String, Object> o, UUID device, long bytes, Descriptor.Exporter exporter) {
        Map<String, Object> t = object(required(o, "torch", ""), "torch");
        Object h = required(t, "handle", "torch.");
        Object file = required(t, "ref_counter_file", "torch.");
        Object slot = required(t, "ref_counter_offset", "torch.");
        int nulls = (h == NULL ? 1 : 0) + (file == NULL ? 1 : 0) + (slot == NULL ? 1 : 0);
        if (nulls != 0 && nulls != 3) {
            throw new DescriptorFormatException("descriptor: fields 'torch.handle', 'torch.ref_counter_file' and"
                    + " 'torch.ref_counter_offset' must be all null (an empty storage) or all present");
        }
        byte[] handle = h == NULL ? null : hex(h, "torch.handle", -1);
        if (handle != null) {
            try {
                TorchHandle.parse(handle);
            } catch (IllegalArgumentException e) {
                throw new DescriptorFormatException("descriptor: field 'torch.handle': " + e.getMessage());
            }
        }
        long deviceIndex = nonNegative(required(t, "device_index", "torch."), "torch.device_index");
        if (deviceIndex > Integer.MAX_VALUE) {
            throw new DescriptorFormatException("descriptor: field 'torch.device_index' is too large: " + deviceIndex);
        }
        Descriptor.Torch torch = new Descriptor.Torch(handle,
                nonNegative(required(t, "storage_bytes", "torch."), "torch.storage_bytes"),
                nonNegative(required(t, "storage_offset_bytes", "torch."), "torch.storage_offset_bytes"),
                file == NULL ? null : string(file, "torch.ref_counter_file"),
                slot == NULL ? -1 : nonNegative(slot, "torch.ref_counter_offset"), (int) deviceIndex);
        if (torch.storageBytes() != bytes) {
            throw new DescriptorFormatException("descriptor: field 'bytes' is " + bytes + " but torch.storage_bytes is "
                    + torch.storageBytes());
        }
        return Descriptor.torch(device, exporter, torch);
    }

    private static TensorLayout tensor(Map<String, Object> t) {
        String name = string(required(t, "dtype", "tensor."), "tensor.dtype");
        DType dtype;
        try {
            dtype = DType.of(name);
        } catch (IllegalArgumentException e) {
            StringBuilder known = new StringBuilder();
            for (DType d : DType.values()) {
                known.append(known.isEmpty() ? "" : ", ").append(d.stableName());
            }
            throw new DescriptorFormatException("descriptor: field 'tensor.dtype': unknown dtype '" + clip(name)
                    + "' (known: " + known + ")");
        }
        if (name.startsWith("torch.")) {
            throw new DescriptorFormatException("descriptor: field 'tensor.dtype' is '" + clip(name) + "'; write it"
                    + " without 'torch.'");
        }
        long[] shape = longArray(required(t, "shape", "tensor."), "tensor.shape");
        long[] strides = longArray(required(t, "strides", "tensor."), "tensor.strides");
        if (shape.length != strides.length) {
            throw new DescriptorFormatException("descriptor: fields 'tensor.shape' (" + shape.length
                    + " dimensions) and 'tensor.strides' (" + strides.length + ") differ in length");
        }
        return TensorLayout.of(dtype, shape, strides, nonNegative(required(t, "offset", "tensor."), "tensor.offset"));
    }
}
