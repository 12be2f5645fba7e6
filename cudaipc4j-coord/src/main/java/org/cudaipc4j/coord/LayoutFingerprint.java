package org.cudaipc4j.coord;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A 64-bit fingerprint of a memory layout (its fields' names, kinds, sizes, alignments and order), written into a
 * shared structure by its creator and checked by every opener, so that two builds with different formats never
 * read each other's bytes. Independent of the JDK's {@code toString} of layouts.
 */
final class LayoutFingerprint {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private LayoutFingerprint() {}

    static long of(MemoryLayout layout) {
        StringBuilder canonical = new StringBuilder();
        describe(layout, canonical);
        return of(canonical.toString());
    }

    /** The fingerprint of a canonical description (also of a record's shape: {@link RecordCodec}). */
    static long of(String canonical) {
        long h = FNV_OFFSET;
        for (byte b : canonical.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        return h;
    }

    private static void describe(MemoryLayout layout, StringBuilder out) {
        out.append(switch (layout) {
            case StructLayout s -> "S";
            case GroupLayout g -> "U";
            case SequenceLayout q -> "Q" + q.elementCount();
            case PaddingLayout p -> "P";
            case ValueLayout v -> "V" + v.carrier().getSimpleName() + v.order();
        });
        out.append(layout.name().orElse("")).append('/').append(layout.byteSize()).append('/')
                .append(layout.byteAlignment());
        switch (layout) {
            case GroupLayout g -> {
                out.append('{');
                g.memberLayouts().forEach(m -> describe(m, out));
                out.append('}');
            }
            case SequenceLayout q -> {
                out.append('[');
                describe(q.elementLayout(), out);
                out.append(']');
            }
            default -> { }
        }
        out.append(';');
    }
}
