package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The trainer's checksum: from the tile alone as from every byte, and as the Python server computes it. */
class WeightSumTest {
    /** {@code bytes} bytes that repeat tile {@code tile} of round 3, tensor 7, as the trainer's device copies do. */
    private static MemorySegment repeated(Arena arena, MemorySegment tile, long bytes) {
        MemorySegment all = arena.allocate(bytes, 8);
        for (long off = 0; off < bytes; off += tile.byteSize()) {
            MemorySegment.copy(tile, 0, all, off, Math.min(tile.byteSize(), bytes - off));
        }
        return all;
    }

    @Test
    void theSumFromTheTileEqualsTheSumOfEveryWord() {
        try (Arena arena = Arena.ofConfined()) {
            for (long tileWords : List.of(1L, 2L, 7L, 128L)) {
                MemorySegment tile = arena.allocate(tileWords * 8, 8);
                ExportedStateDict.fill(tile, 42, 3, 7);
                for (long words : List.of(tileWords, tileWords + 1, 3 * tileWords - 1, 3 * tileWords,
                        1000 * tileWords + 5)) {
                    MemorySegment all = repeated(arena, tile, words * 8);
                    assertEquals(WeightSum.of(all), WeightSum.ofRepeated(tile, words * 8),
                            tileWords + "-word tile over " + words + " words");
                }
            }
        }
    }

    @Test
    void nWordsOfOneSumToNSquaredAndPositionsCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(8, 8);
            one.set(ValueLayout.JAVA_LONG, 0, 1);
            assertEquals(1000L * 1000, WeightSum.ofRepeated(one, 8000), "the sum of the first n odd numbers");
            MemorySegment ab = arena.allocate(16, 8);
            ab.set(ValueLayout.JAVA_LONG, 0, 5);
            MemorySegment ba = arena.allocate(16, 8);
            ba.set(ValueLayout.JAVA_LONG, 8, 5);
            assertEquals(5, WeightSum.of(ab));
            assertEquals(15, WeightSum.of(ba), "a word moved changes the sum");
        }
    }

    @Test
    void theTileDependsOnSeedRoundAndTensor() {
        try (Arena arena = Arena.ofConfined()) {
            long base = sumOf(arena, 1, 1, 1);
            assertEquals(base, sumOf(arena, 1, 1, 1), "the same inputs, the same tile");
            for (long other : new long[] {sumOf(arena, 2, 1, 1), sumOf(arena, 1, 2, 1), sumOf(arena, 1, 1, 2)}) {
                assertNotEquals(base, other);
            }
        }
    }

    private static long sumOf(Arena arena, long seed, int round, int tensor) {
        MemorySegment tile = arena.allocate(4096, 8);
        ExportedStateDict.fill(tile, seed, round, tensor);
        return WeightSum.of(tile);
    }

    @Test
    void thePythonServersReferenceAgreesOnTheSameBytes() throws Exception {
        JavaProcess.Result probe;
        try {
            probe = JavaProcess.runCommand(Duration.ofSeconds(60), List.of("python3", "--version"));
        } catch (RuntimeException e) {
            probe = null;
        }
        Assumptions.assumeTrue(probe != null && probe.exitCode() == 0, "skipped: no python3 here");
        Path script = PythonScripts.extract("weight_sync.py");
        Path data = Files.createTempFile("cudaipc4j-wsum", ".bin");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tile = arena.allocate(8 * 97, 8);
            ExportedStateDict.fill(tile, 1234, 50, 99);
            MemorySegment all = repeated(arena, tile, 8 * 1000);
            Files.write(data, all.toArray(ValueLayout.JAVA_BYTE));
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(60),
                    List.of("python3", script.toString(), "checksum", data.toString()));
            assertEquals(0, r.exitCode(), r.describe());
            assertEquals(WeightSum.format(WeightSum.ofRepeated(tile, 8 * 1000)), r.stdout().strip());
            assertEquals(WeightSum.format(WeightSum.of(all)), r.stdout().strip());
        } finally {
            Files.deleteIfExists(script);
            Files.deleteIfExists(data);
        }
    }

    @Test
    void theWireFormIsSixteenHexDigits() {
        for (long v : new long[] {0, 1, -1, Long.MIN_VALUE, 0x0123_4567_89ab_cdefL}) {
            String hex = WeightSum.format(v);
            assertEquals(16, hex.length());
            assertEquals(v, WeightSum.parse(hex));
        }
        assertEquals("ffffffffffffffff", WeightSum.format(-1));
        for (String bad : List.of("", "abc", "0123456789abcdefa", "0123456789abcdeg")) {
            var e = assertThrows(IllegalArgumentException.class, () -> WeightSum.parse(bad));
            assertEquals("a checksum has 16 hex digits, got '" + bad + "'", e.getMessage());
        }
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> WeightSum.of(arena.allocate(12)));
            assertThrows(IllegalArgumentException.class, () -> WeightSum.ofRepeated(arena.allocate(16), 8));
        }
    }
}
