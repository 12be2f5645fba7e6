package org.cudaipc4j.cli.interop;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.cudaipc4j.interop.TensorLayout;

/**
 * The sha256 of a tensor's elements in row-major order: the bytes torch's
 * {@code t.contiguous().cpu().numpy().tobytes()} gives, whatever the view's strides, offset or stride-0 dimensions.
 * The storage is read through a {@link Source} (device memory's {@code copyTo}); a contiguous tensor in chunks, a
 * strided view as the span its elements reach.
 */
final class TensorDigest {
    /** Bytes read at once from a contiguous tensor. */
    static final int CHUNK = 16 << 20;

    /** Reads the storage: fills {@code dst} with the bytes from {@code offset} on. */
    @FunctionalInterface
    interface Source {
        /** Copies {@code dst.byteSize()} bytes of the storage from {@code offset} into {@code dst}. */
        void copyTo(long offset, MemorySegment dst);
    }

    private TensorDigest() {}

    /** The sha256 (64 lower-case hex digits) of {@code layout}'s elements over the storage {@code source} reads. */
    static String sha256(TensorLayout layout, Source source) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
        long count = layout.elementCount();
        if (count > 0) {
            int es = layout.dtype().elementSize();
            long first = layout.offset() * es;
            try (Arena arena = Arena.ofConfined()) {
                if (contiguous(layout)) {
                    long total = count * es;
                    MemorySegment buffer = arena.allocate(Math.min(total, CHUNK));
                    for (long done = 0; done < total; ) {
                        long n = Math.min(buffer.byteSize(), total - done);
                        MemorySegment part = buffer.asSlice(0, n);
                        source.copyTo(first + done, part);
                        md.update(part.asByteBuffer());
                        done += n;
                    }
                } else {
                    strided(layout, source, md, first, es);
                }
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** Row-major with no gaps (dimensions of size 1 have any stride). */
    static boolean contiguous(TensorLayout layout) {
        long[] shape = layout.shape();
        long[] strides = layout.strides();
        long expected = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            if (shape[d] != 1 && strides[d] != expected) {
                return false;
            }
            expected *= shape[d];
        }
        return true;
    }

    /** A view with gaps, overlaps or broadcast dimensions: its span read once, then walked in row-major order. */
    private static void strided(TensorLayout layout, Source source, MessageDigest md, long first, int es) {
        long span = layout.extentBytes() - first;
        if (span > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a strided view reaching over " + span + " bytes is more than this"
                    + " command hashes (2 GiB); hash a contiguous copy");
        }
        byte[] storage = new byte[(int) span];
        source.copyTo(first, MemorySegment.ofArray(storage));
        long[] shape = layout.shape();
        long[] strides = layout.strides();
        int rank = shape.length;
        // The innermost dimension with stride 1 is one run of bytes.
        boolean runs = rank > 0 && strides[rank - 1] == 1;
        int outer = runs ? rank - 1 : rank;
        int run = runs ? (int) (shape[rank - 1] * es) : es;
        long[] index = new long[outer];
        long steps = layout.elementCount() / (runs ? shape[rank - 1] : 1);
        for (long n = 0; n < steps; n++) {
            long at = 0;
            for (int d = 0; d < outer; d++) {
                at += index[d] * strides[d];
            }
            md.update(storage, (int) (at * es), run);
            for (int d = outer - 1; d >= 0; d--) {
                if (++index[d] < shape[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}
