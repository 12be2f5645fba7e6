package org.cudaipc4j.simpleipc.kernels;

/** The result of {@code count_mismatches}: how many bytes differed and the first one's offset ({@code -1}: none). */
public record MismatchCount(long count, long firstBadOffset) {
    /** True when every byte matched. */
    public boolean clean() {
        return count == 0;
    }
}
