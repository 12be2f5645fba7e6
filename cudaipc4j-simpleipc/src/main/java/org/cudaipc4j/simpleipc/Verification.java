package org.cudaipc4j.simpleipc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Checks that every byte of a buffer holds one value. The fast path compares 1 MiB slices with
 * {@link MemorySegment#mismatch} (vectorised in the JDK); only a buffer that is wrong is walked byte by byte, to
 * count the bad bytes.
 *
 * @param badBytes number of bytes that differ (0: the buffer is right)
 * @param firstBadOffset offset of the first bad byte, or -1
 * @param actual value found at that offset
 */
public record Verification(long badBytes, long firstBadOffset, int actual) {
    private static final long CHUNK = 1 << 20;

    public boolean ok() {
        return badBytes == 0;
    }

    public static Verification check(MemorySegment data, byte expected) {
        long size = data.byteSize();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment reference = arena.allocate(Math.min(CHUNK, Math.max(size, 1)));
            reference.fill(expected);
            for (long off = 0; off < size; off += CHUNK) {
                long len = Math.min(CHUNK, size - off);
                long at = data.asSlice(off, len).mismatch(reference.asSlice(0, len));
                if (at >= 0) {
                    long first = off + at;
                    return new Verification(countBad(data, first, expected), first,
                            Byte.toUnsignedInt(data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, first)));
                }
            }
        }
        return new Verification(0, -1, 0);
    }

    private static long countBad(MemorySegment data, long from, byte expected) {
        long bad = 0;
        for (long i = from; i < data.byteSize(); i++) {
            if (data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != expected) {
                bad++;
            }
        }
        return bad;
    }
}
