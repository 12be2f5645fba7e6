package org.cudaipc4j.cuda;

/** Grid or block dimensions of a launch; every dimension at least 1. */
public record Dim3(int x, int y, int z) {
    public Dim3 {
        if (x < 1 || y < 1 || z < 1) {
            throw new IllegalArgumentException("launch dimensions must be at least 1, got " + x + "x" + y + "x" + z);
        }
    }

    /** {@code (x, 1, 1)}. */
    public static Dim3 of(int x) {
        return new Dim3(x, 1, 1);
    }
}
