package org.cudaipc4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * The weight-sync checksum of a tensor's bytes ({@code wsum64}, docs/interop-format.md), both ways: the Java trainer
 * announces it and the Python server recomputes it on the GPU; the torch trainer computes it on the GPU and the Java
 * server recomputes it here. The bytes are read as little-endian 64-bit words {@code w[0..n)}, summed as
 * {@code sum(w[i] * (2i + 1)) mod 2^64}. The odd weights make it depend on each word's position, so a shifted or
 * stale mapping does not pass; it needs only integer multiplies and a sum, which torch does on the GPU, and it adds
 * up over consecutive pieces ({@link #of(MemorySegment, long)}), so a host can sum a tensor by chunks, in parallel.
 */
final class WeightSum {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private WeightSum() {}

    /** The checksum of all of {@code bytes}, whose size is a multiple of 8. */
    static long of(MemorySegment bytes) {
        return of(bytes, 0);
    }

    /**
     * The part of a checksum that {@code bytes} contribute when their first word is word {@code firstWord} of the
     * whole (sizes multiples of 8): the whole's checksum is the sum, mod 2^64, of its consecutive pieces' parts.
     */
    static long of(MemorySegment bytes, long firstWord) {
        if (firstWord < 0) {
            throw new IllegalArgumentException("a word offset is not negative: " + firstWord);
        }
        long n = words(bytes.byteSize());
        long sum = 0;
        long weight = 2 * firstWord + 1;
        for (long i = 0; i < n; i++, weight += 2) {
            sum += bytes.get(WORD, i * 8) * weight;
        }
        return sum;
    }

    /**
     * The checksum of {@code bytes} bytes that repeat {@code tile} from the start ({@code tile}'s size a multiple of
     * 8, at most {@code bytes}), in time proportional to the tile: word {@code j} of the tile stands at
     * {@code i = j + rK} for {@code r < c}, whose weights sum to {@code c(2j + 1) + Kc(c - 1)}.
     */
    static long ofRepeated(MemorySegment tile, long bytes) {
        long k = words(tile.byteSize());
        long n = words(bytes);
        if (k == 0 || k > n) {
            throw new IllegalArgumentException("a tile of " + tile.byteSize() + " bytes cannot fill " + bytes);
        }
        long sum = 0;
        for (long j = 0; j < k; j++) {
            long c = (n - 1 - j) / k + 1;
            sum += tile.get(WORD, j * 8) * (c * (2 * j + 1) + k * c * (c - 1));
        }
        return sum;
    }

    private static long words(long bytes) {
        if (bytes % 8 != 0) {
            throw new IllegalArgumentException("the checksum reads 8-byte words: " + bytes + " bytes");
        }
        return bytes / 8;
    }

    /** 16 lower-case hex digits, as on the wire. */
    static String format(long sum) {
        return HexFormat.of().toHexDigits(sum);
    }

    /**
     * Reads 16 hex digits.
     *
     * @throws IllegalArgumentException for anything else
     */
    static long parse(String hex) {
        if (hex.length() != 16 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("a checksum has 16 hex digits, got '" + hex + "'");
        }
        return HexFormat.fromHexDigitsToLong(hex);
    }
}
