package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The Java server's host sum of a round's tensors: by pieces, by chunks through two buffers, as of the whole. */
class ChunkedWeightSumTest {
    private static MemorySegment random(Arena arena, long bytes, long seed) {
        MemorySegment s = arena.allocate(Math.max(bytes, 1), 8).asSlice(0, bytes);
        Random r = new Random(seed);
        for (long off = 0; off < bytes; off += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, off, r.nextLong());
        }
        return s;
    }

    @Test
    void thePiecesOfAWholeAddUpToItsSum() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment whole = random(arena, 8 * 1001, 1);
            long expected = WeightSum.of(whole);
            for (long[] cuts : new long[][] {{}, {1}, {500}, {1000}, {3, 4, 5, 999}, {1, 2, 3, 4, 5, 6, 7}}) {
                long sum = 0;
                long from = 0;
                List<Long> ends = new ArrayList<>();
                for (long c : cuts) {
                    ends.add(c);
                }
                ends.add(1001L);
                for (long to : ends) {
                    sum += WeightSum.of(whole.asSlice(from * 8, (to - from) * 8), from);
                    from = to;
                }
                assertEquals(expected, sum, "cut at words " + Arrays.toString(cuts));
            }
            assertEquals(0, WeightSum.of(whole.asSlice(0, 0), 77), "no words, nothing");
            assertEquals(WeightSum.of(whole), WeightSum.of(whole, 0));
            assertThrows(IllegalArgumentException.class, () -> WeightSum.of(whole, -1));
            assertThrows(IllegalArgumentException.class, () -> WeightSum.of(whole.asSlice(0, 12), 3));
        }
    }

    @Test
    void theParallelSumOfSlicesEqualsTheSequentialOne() {
        try (Arena arena = Arena.ofShared()) {
            for (long bytes : new long[] {0, 8, ChunkedWeightSum.SLICE, ChunkedWeightSum.SLICE + 8,
                    5 * ChunkedWeightSum.SLICE + 24}) {
                MemorySegment s = random(arena, bytes, bytes);
                for (long firstWord : new long[] {0, 12345, 1L << 40}) {
                    assertEquals(WeightSum.of(s, firstWord), ChunkedWeightSum.sum(s, firstWord),
                            bytes + " bytes from word " + firstWord);
                }
            }
        }
    }

    /**
     * Copies from host "device" buffers: at once when enqueued ({@code eager}: a copy into the buffer being summed
     * would show), or only at {@link #await()} (a chunk summed before its copy landed would show).
     */
    private static final class FakeCopier implements ChunkedWeightSum.Copier {
        private final List<MemorySegment> device;
        private final boolean eager;
        private final Deque<Runnable> pending = new ArrayDeque<>();
        int copies;

        FakeCopier(List<MemorySegment> device, boolean eager) {
            this.device = device;
            this.eager = eager;
        }

        @Override
        public void copyAsync(int buffer, long offset, MemorySegment dst) {
            assertTrue(pending.isEmpty(), "one copy in flight at a time");
            copies++;
            Runnable copy = () -> MemorySegment.copy(device.get(buffer), offset, dst, 0, dst.byteSize());
            if (eager) {
                copy.run();
                pending.add(() -> {});
            } else {
                pending.add(copy);
            }
        }

        @Override
        public void await() {
            while (!pending.isEmpty()) {
                pending.poll().run();
            }
        }
    }

    @Test
    void everyBufferIsSummedThroughTwoHostBuffersAsAWhole() {
        try (Arena arena = Arena.ofShared()) {
            for (long chunk : new long[] {8, 64, 3 * ChunkedWeightSum.SLICE + 8}) {
                long[] sizes = {0, 8, 24, chunk, chunk + 8, 3 * chunk - 8, 0, 2 * chunk,
                    Math.min(7 * ChunkedWeightSum.SLICE, 1000 * chunk)};
                List<MemorySegment> device = new ArrayList<>();
                long[] expected = new long[sizes.length];
                long chunks = 0;
                for (int i = 0; i < sizes.length; i++) {
                    device.add(random(arena, sizes[i], 31L * i + chunk));
                    expected[i] = WeightSum.of(device.get(i));
                    chunks += (sizes[i] + chunk - 1) / chunk;
                }
                for (boolean eager : new boolean[] {true, false}) {
                    MemorySegment first = random(arena, chunk, -1);
                    MemorySegment second = random(arena, chunk, -2);
                    FakeCopier copier = new FakeCopier(device, eager);
                    assertArrayEquals(expected, ChunkedWeightSum.of(sizes, first, second, copier),
                            "chunks of " + chunk + " bytes, eager " + eager);
                    assertEquals(chunks, copier.copies, "each chunk copied once");
                    assertTrue(copier.pending.isEmpty(), "nothing in flight at the end");
                }
            }
            FakeCopier none = new FakeCopier(List.of(), false);
            assertArrayEquals(new long[] {0, 0}, ChunkedWeightSum.of(new long[] {0, 0}, random(arena, 8, 1),
                    random(arena, 8, 2), none));
            assertEquals(0, none.copies);
        }
    }

    @Test
    void sizesThatAreNotWholeWordsAndUnequalBuffersAreRefused() {
        try (Arena arena = Arena.ofShared()) {
            FakeCopier copier = new FakeCopier(List.of(), false);
            MemorySegment a = arena.allocate(64, 8);
            MemorySegment b = arena.allocate(64, 8);
            var e = assertThrows(IllegalArgumentException.class,
                    () -> ChunkedWeightSum.of(new long[] {8, 12}, a, b, copier));
            assertEquals("the checksum reads 8-byte words: buffer 1 has 12 bytes", e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> ChunkedWeightSum.of(new long[] {8}, a, arena.allocate(32, 8), copier));
            assertThrows(IllegalArgumentException.class,
                    () -> ChunkedWeightSum.of(new long[] {8}, a.asSlice(0, 12), b.asSlice(0, 12), copier));
            assertEquals(0, copier.copies, "refused before any copy");
        }
    }
}
