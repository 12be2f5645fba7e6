package org.cudaipc4j.examples;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

/**
 * The {@link WeightSum} of each of a round's device buffers, summed on the host: the buffers are copied in chunks
 * into two host buffers in turn, the next chunk's copy (of the same buffer or the next) enqueued before the current
 * chunk is summed, so that the copies run while the host sums. The host buffers should be pinned, for the copies to
 * be asynchronous and at full speed. A chunk is summed in slices on the common fork-join pool, so the host buffers
 * must be readable from any thread (a shared or pinned arena's).
 */
final class ChunkedWeightSum {
    /** Bytes a task of the common pool sums. */
    static final long SLICE = 2L << 20;

    /** The device side: enqueues copies to the host and waits for them. */
    interface Copier {
        /**
         * Enqueues a copy of {@code dst.byteSize()} bytes of buffer {@code buffer}, from {@code offset}, into
         * {@code dst}.
         */
        void copyAsync(int buffer, long offset, MemorySegment dst);

        /** Returns once every copy enqueued has landed. */
        void await();
    }

    private record Chunk(int buffer, long offset, long bytes) {}

    private ChunkedWeightSum() {}

    /**
     * The checksums of buffers of {@code sizes} bytes (each a multiple of 8), in order.
     *
     * @param sizes  each buffer's size in bytes
     * @param first  one host buffer, its size a multiple of 8: the chunks' size
     * @param second the other, of the same size
     * @param copier copies the buffers' chunks into them
     * @return each buffer's checksum
     */
    static long[] of(long[] sizes, MemorySegment first, MemorySegment second, Copier copier) {
        long chunk = first.byteSize();
        if (chunk <= 0 || chunk % 8 != 0 || second.byteSize() != chunk) {
            throw new IllegalArgumentException("two host buffers of one size, a positive multiple of 8: "
                    + first.byteSize() + " and " + second.byteSize() + " bytes");
        }
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 0 || sizes[i] % 8 != 0) {
                throw new IllegalArgumentException("the checksum reads 8-byte words: buffer " + i + " has "
                        + sizes[i] + " bytes");
            }
            for (long off = 0; off < sizes[i]; off += chunk) {
                chunks.add(new Chunk(i, off, Math.min(chunk, sizes[i] - off)));
            }
        }
        long[] sums = new long[sizes.length];
        if (chunks.isEmpty()) {
            return sums;
        }
        MemorySegment[] host = {first, second};
        enqueue(copier, chunks.getFirst(), first);
        copier.await();
        for (int k = 0; k < chunks.size(); k++) {
            if (k + 1 < chunks.size()) {
                // Into the buffer the previous chunk was summed from, which is done.
                enqueue(copier, chunks.get(k + 1), host[(k + 1) % 2]);
            }
            Chunk c = chunks.get(k);
            try {
                sums[c.buffer()] += sum(host[k % 2].asSlice(0, c.bytes()), c.offset() / 8);
            } finally {
                // Also on a failure: no copy may still be landing in a buffer its owner frees.
                copier.await();
            }
        }
        return sums;
    }

    private static void enqueue(Copier copier, Chunk c, MemorySegment host) {
        copier.copyAsync(c.buffer(), c.offset(), host.asSlice(0, c.bytes()));
    }

    /** {@link WeightSum#of(MemorySegment, long)}, by slices summed in parallel (the sum wraps, in any order). */
    static long sum(MemorySegment bytes, long firstWord) {
        long slices = (bytes.byteSize() + SLICE - 1) / SLICE;
        if (slices <= 1) {
            return WeightSum.of(bytes, firstWord);
        }
        return LongStream.range(0, slices).parallel().map(s -> {
            long off = s * SLICE;
            return WeightSum.of(bytes.asSlice(off, Math.min(SLICE, bytes.byteSize() - off)), firstWord + off / 8);
        }).sum();
    }
}
