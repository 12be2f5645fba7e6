package org.cudaipc4j.interop;

import java.util.Arrays;
import java.util.HexFormat;

/** Writes a {@link Descriptor}'s canonical JSON text; see {@link DescriptorJson} for the rules. */
final class DescriptorJsonWriter {
    private static final HexFormat HEX = HexFormat.of();

    private DescriptorJsonWriter() {}

    /** See {@link DescriptorJson#toJson}. */
    static String toJson(Descriptor d) {
        Out o = new Out();
        o.begin();
        o.string("cudaipc4j_descriptor", Descriptor.VERSION);
        o.string("kind", d.kind().code());
        if (d.deviceUuid() != null) {
            o.string("device_uuid", DescriptorJson.uuidString(d.deviceUuid()));
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
            o.name("fd_numbers").array(Arrays.stream(d.fdNumbers()).asLongStream().toArray());
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
            s.append(quoted(v));
        }
    }

    /** {@return {@code v} as a JSON string of the format's rules: quoted, ASCII, escaped} */
    static String quoted(String v) {
        StringBuilder s = new StringBuilder().append('"');
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
        return s.append('"').toString();
    }
}
