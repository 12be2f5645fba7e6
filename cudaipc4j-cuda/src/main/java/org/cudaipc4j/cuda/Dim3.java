package org.cudaipc4j.cuda;

/**
 * Grid or block dimensions of a launch; every dimension at least 1.
 *
 * @param x blocks or threads along x
 * @param y blocks or threads along y
 * @param z blocks or threads along z
 */
public record Dim3(int x, int y, int z) {
    /**
     * Checks the dimensions.
     *
     * @throws IllegalArgumentException when a dimension is below 1
     */
    public Dim3 {
        if (x < 1 || y < 1 || z < 1) {
            throw new IllegalArgumentException("launch dimensions must be at least 1, got " + x + "x" + y + "x" + z);
        }
    }

    /**
     * {@return {@code (x, 1, 1)}}
     *
     * @param x the size along x
     */
    public static Dim3 of(int x) {
        return new Dim3(x, 1, 1);
    }
}
