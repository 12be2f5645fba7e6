package org.cudaipc4j.interop;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON text of a {@link Descriptor}, format 1.0 ({@code docs/interop.md}, "rules of the text").
 *
 * <p>Writing is canonical, so that Java and Python write the same bytes: fields in the documented order, absent
 * optional fields left out (the six {@code torch} fields always written, {@code null} where torch has none), no
 * whitespace, integers in plain decimal, hex and UUIDs in lower case, strings in ASCII with {@code "} and
 * {@code \} escaped, the short escapes for backspace, form feed, newline, return and tab, every other character below
 * 0x20 or above 0x7e as {@code \}{@code u} and four lower-case hex digits. No trailing newline (a golden file adds
 * one).
 *
 * <p>Reading takes any valid JSON (whitespace, key order, escapes free) through Gson's strict tokenizer, ignores
 * fields it does not know, treats a {@code null} optional top-level field as absent, accepts any minor version of
 * major 1 and refuses, in one line naming the field, everything else: not JSON, a key given twice, text after the
 * object, a newer (or older) major version, a missing or mistyped field ({@code 1.0}, {@code 1e3} and booleans are
 * no integers), an integer out of range, bad hex, an unknown kind, handle type or dtype, a field of another kind,
 * a torch handle that {@link TorchHandle#parse} refuses.
 */
public final class DescriptorJson {
    private static final HexFormat HEX = HexFormat.of();
    private static final Pattern VERSION = Pattern.compile("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");
    private static final Pattern GPU_UUID = Pattern.compile(
            "GPU-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
    /** Fields of each kind beyond the common ones, for "a field of another kind". */
    private static final List<String> KIND_FIELDS = List.of("ipc_handle", "handle_type", "fabric_handle", "fds",
            "fd_numbers", "pool_id", "pointer_export", "torch");
    private static final Object NULL = new Object();

    private DescriptorJson() {}

    // ---------------------------------------------------------------- writing

    /**
     * {@return the descriptor as its canonical line of JSON (no trailing newline)}
     *
     * @param d the descriptor
     */
    public static String toJson(Descriptor d) {
        Out o = new Out();
        o.begin();
        o.string("cudaipc4j_descriptor", Descriptor.VERSION);
        o.string("kind", d.kind().code());
        if (d.deviceUuid() != null) {
            o.string("device_uuid", uuidString(d.deviceUuid()));
        }
        o.number("bytes", d.bytes());
        o.name("exporter").begin();
        o.number("pid", d.exporter().pid());
        o.number("pid_namespace", d.exporter().pidNamespace());
        o.number("export_id", d.exporter().exportId());
        if (d.exporter().holders() != null) {
            o.string("holders", d.exporter().holders());
        }
        o.end();
        if (d.ipcHandle() != null) {
            o.string("ipc_handle", HEX.formatHex(d.ipcHandle()));
        }
        if (d.handleType() != null) {
            o.string("handle_type", d.handleType().code());
        }
        if (d.fabricHandle() != null) {
            o.string("fabric_handle", HEX.formatHex(d.fabricHandle()));
        }
        if (d.handleType() == Descriptor.HandleType.POSIX_FD) {
            o.number("fds", d.fds());
        }
        if (d.fdNumbers() != null) {
            o.name("fd_numbers").array(java.util.Arrays.stream(d.fdNumbers()).asLongStream().toArray());
        }
        if (d.kind() == Descriptor.Kind.POOL) {
            o.number("pool_id", d.poolId());
            o.string("pointer_export", HEX.formatHex(d.pointerExport()));
        }
        if (d.torch() != null) {
            Descriptor.Torch t = d.torch();
            o.name("torch").begin();
            o.nullableString("handle", t.handle() == null ? null : HEX.formatHex(t.handle()));
            o.number("storage_bytes", t.storageBytes());
            o.number("storage_offset_bytes", t.storageOffsetBytes());
            o.nullableString("ref_counter_file", t.refCounterFile());
            if (t.refCounterOffset() < 0) {
                o.name("ref_counter_offset").raw("null");
            } else {
                o.number("ref_counter_offset", t.refCounterOffset());
            }
            o.number("device_index", t.deviceIndex());
            o.end();
        }
        if (d.tensor() != null) {
            TensorLayout l = d.tensor();
            o.name("tensor").begin();
            o.string("dtype", l.dtype().stableName());
            o.name("shape").array(l.shape());
            o.name("strides").array(l.strides());
            o.number("offset", l.offset());
            o.end();
        }
        if (d.event() != null) {
            o.name("event").begin();
            o.string("ipc_handle", HEX.formatHex(d.event().ipcHandle()));
            o.name("wait").raw(Boolean.toString(d.event().waitRequired()));
            o.end();
        }
        o.end();
        return o.s.toString();
    }

    /** A tiny canonical writer: commas and separators only, strings escaped by the format's rules. */
    private static final class Out {
        final StringBuilder s = new StringBuilder();
        boolean first = true;

        Out begin() {
            s.append('{');
            first = true;
            return this;
        }

        Out end() {
            s.append('}');
            first = false;
            return this;
        }

        Out name(String name) {
            if (!first) {
                s.append(',');
            }
            first = false;
            quote(name);
            s.append(':');
            return this;
        }

        void raw(String text) {
            s.append(text);
            first = false;
        }

        void string(String name, String value) {
            name(name);
            quote(value);
        }

        void nullableString(String name, String value) {
            if (value == null) {
                name(name).raw("null");
            } else {
                string(name, value);
            }
        }

        void number(String name, long value) {
            name(name).raw(Long.toString(value));
        }

        void array(long[] values) {
            s.append('[');
            for (int i = 0; i < values.length; i++) {
                s.append(i == 0 ? "" : ",").append(values[i]);
            }
            s.append(']');
            first = false;
        }

        void quote(String v) {
            s.append('"');
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                switch (c) {
                    case '"' -> s.append("\\\"");
                    case '\\' -> s.append("\\\\");
                    case '\b' -> s.append("\\b");
                    case '\f' -> s.append("\\f");
                    case '\n' -> s.append("\\n");
                    case '\r' -> s.append("\\r");
                    case '\t' -> s.append("\\t");
                    default -> {
                        if (c < 0x20 || c > 0x7e) {
                            s.append(String.format("\\u%04x", (int) c));
                        } else {
                            s.append(c);
                        }
                    }
                }
            }
            s.append('"');
        }
    }

    /**
     * {@return {@code GPU-} and the UUID in lower case, as {@code nvidia-smi -L} prints it}
     *
     * @param uuid the UUID
     */
    public static String uuidString(UUID uuid) {
        return "GPU-" + uuid;
    }

    /**
     * {@return the UUID of {@code GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx} (hex in either case)}
     *
     * @param s the text
     * @throws DescriptorFormatException when it is not of that form
     */
    public static UUID parseUuid(String s) {
        Matcher m = GPU_UUID.matcher(s);
        if (!m.matches()) {
            throw new DescriptorFormatException("descriptor: field 'device_uuid' must look like"
                    + " GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, got '" + clip(s) + "'");
        }
        return UUID.fromString(m.group(1).toLowerCase(Locale.ROOT));
    }

    // ---------------------------------------------------------------- reading

    /**
     * As {@link #fromJson(String)} for UTF-8 bytes; text that is not UTF-8 is refused.
     *
     * @param utf8 the JSON text in UTF-8
     * @return the descriptor
     */
    public static Descriptor fromJson(byte[] utf8) {
        try {
            return fromJson(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString());
        } catch (CharacterCodingException e) {
            throw new DescriptorFormatException("descriptor: not UTF-8 text");
        }
    }

    /**
     * Reads a descriptor.
     *
     * @param json the JSON text
     * @return the descriptor
     * @throws DescriptorFormatException in one line naming the field (see the class comment)
     */
    public static Descriptor fromJson(String json) {
        Map<String, Object> o = parseObject(json);
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
                    ? parseUuid(string(required(o, "device_uuid", ""), "device_uuid")) : null;
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
        } catch (DescriptorFormatException e) {
            throw e;
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
                    throw new DescriptorFormatException("descriptor: field 'fd_numbers[" + i + "]' is no fd: " + l[i]);
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
        DType dtype;
        String name = string(required(t, "dtype", "tensor."), "tensor.dtype");
        try {
            dtype = DType.of(name);
        } catch (IllegalArgumentException e) {
            throw new DescriptorFormatException("descriptor: field 'tensor.dtype': " + e.getMessage());
        }
        if (name.startsWith("torch.")) {
            throw new DescriptorFormatException("descriptor: field 'tensor.dtype' is '" + name + "'; write it without"
                    + " 'torch.'");
        }
        long[] shape = longArray(required(t, "shape", "tensor."), "tensor.shape");
        long[] strides = longArray(required(t, "strides", "tensor."), "tensor.strides");
        if (shape.length != strides.length) {
            throw new DescriptorFormatException("descriptor: fields 'tensor.shape' (" + shape.length
                    + " dimensions) and 'tensor.strides' (" + strides.length + ") differ in length");
        }
        return TensorLayout.of(dtype, shape, strides, nonNegative(required(t, "offset", "tensor."), "tensor.offset"));
    }

    /** Parses one JSON object with Gson's strict tokenizer into maps, lists, strings, number literals, booleans. */
    private static Map<String, Object> parseObject(String json) {
        if (json == null) {
            throw new DescriptorFormatException("descriptor: no text");
        }
        try {
            JsonReader r = new JsonReader(new StringReader(json));
            r.setStrictness(Strictness.STRICT);
            if (r.peek() != JsonToken.BEGIN_OBJECT) {
                throw new DescriptorFormatException("descriptor: not a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> o = (Map<String, Object>) value(r, "");
            boolean end;
            try {
                end = r.peek() == JsonToken.END_DOCUMENT;
            } catch (IOException e) {
                end = false;
            }
            if (!end) {
                throw new DescriptorFormatException("descriptor: text after the JSON object");
            }
            return o;
        } catch (IOException | IllegalStateException | NumberFormatException e) {
            Matcher at = WHERE.matcher(String.valueOf(e.getMessage()));
            throw new DescriptorFormatException("descriptor: not valid JSON" + (at.find() ? " (at line " + at.group(1)
                    + " column " + at.group(2) + ")" : e instanceof java.io.EOFException ? " (it ends early)" : ""));
        }
    }

    private static final Pattern WHERE = Pattern.compile("line (\\d+) column (\\d+)");

    private static Object value(JsonReader r, String path) throws IOException {
        switch (r.peek()) {
            case BEGIN_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                r.beginObject();
                while (r.hasNext()) {
                    String name = r.nextName();
                    String at = path.isEmpty() ? name : path + "." + name;
                    if (m.containsKey(name)) {
                        throw new DescriptorFormatException("descriptor: field '" + clip(at) + "' is given twice");
                    }
                    m.put(name, value(r, at));
                }
                r.endObject();
                return m;
            }
            case BEGIN_ARRAY -> {
                List<Object> l = new ArrayList<>();
                r.beginArray();
                while (r.hasNext()) {
                    l.add(value(r, path + "[" + l.size() + "]"));
                }
                r.endArray();
                return l;
            }
            case STRING -> {
                return r.nextString();
            }
            case NUMBER -> {
                return new Num(r.nextString());
            }
            case BOOLEAN -> {
                return r.nextBoolean();
            }
            case NULL -> {
                r.nextNull();
                return NULL;
            }
            default -> throw new DescriptorFormatException("descriptor: unexpected " + r.peek() + " at '" + path + "'");
        }
    }

    /** A number as written. */
    private record Num(String literal) {
        @Override
        public String toString() {
            return literal;
        }
    }

    private static Object required(Map<String, Object> o, String field, String prefix) {
        Object e = o.get(field);
        if (e == null) {
            throw new DescriptorFormatException("descriptor: field '" + prefix + field + "' is missing");
        }
        return e;
    }

    /** The field, or null when absent or null. */
    private static Object optional(Map<String, Object> o, String field) {
        Object e = o.get(field);
        return e == NULL ? null : e;
    }

    private static String string(Object e, String field) {
        if (!(e instanceof String s)) {
            throw wrongType(field, "a string", e);
        }
        return s;
    }

    private static boolean bool(Object e, String field) {
        if (!(e instanceof Boolean b)) {
            throw wrongType(field, "true or false", e);
        }
        return b;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object e, String field) {
        if (!(e instanceof Map<?, ?>)) {
            throw wrongType(field, "an object", e);
        }
        return (Map<String, Object>) e;
    }

    private static long nonNegative(Object e, String field) {
        if (!(e instanceof Num n) || !INTEGER.matcher(n.literal()).matches()) {
            throw wrongType(field, "an integer", e);
        }
        long v;
        try {
            v = Long.parseLong(n.literal());
        } catch (NumberFormatException x) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' is out of range (0 to 2^63 - 1): "
                    + clip(n.literal()));
        }
        if (v < 0) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' must be >= 0, got " + v);
        }
        return v;
    }

    private static long[] longArray(Object e, String field) {
        if (!(e instanceof List<?> a)) {
            throw wrongType(field, "an array of integers", e);
        }
        long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = nonNegative(a.get(i), field + "[" + i + "]");
        }
        return out;
    }

    private static byte[] hex64(Object e, String field) {
        return hex(e, field, 64);
    }

    /** Hex of {@code length} bytes (any positive length when {@code length} is negative). */
    private static byte[] hex(Object e, String field, int length) {
        String s = string(e, field);
        if (s.length() % 2 != 0 || (length >= 0 && s.length() != 2 * length) || s.isEmpty()) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' must be "
                    + (length >= 0 ? length + " bytes (" + 2 * length + " hex digits)" : "an even number of hex digits")
                    + ", got " + s.length() + " characters");
        }
        try {
            return HEX.parseHex(s);
        } catch (IllegalArgumentException x) {
            throw new DescriptorFormatException("descriptor: field '" + field + "' is not hex: '" + clip(s) + "'");
        }
    }

    private static DescriptorFormatException wrongType(String field, String expected, Object got) {
        String shown = got == NULL ? "null" : got instanceof String s ? "\"" + s + "\"" : got instanceof Map<?, ?>
                ? "an object" : got instanceof List<?> ? "an array" : String.valueOf(got);
        return new DescriptorFormatException("descriptor: field '" + field + "' must be " + expected + ", got "
                + clip(shown));
    }

    private static String clip(String s) {
        String one = s.replaceAll("[\\p{Cntrl}]", " ");
        return one.length() > 60 ? one.substring(0, 57) + "..." : one;
    }
}
