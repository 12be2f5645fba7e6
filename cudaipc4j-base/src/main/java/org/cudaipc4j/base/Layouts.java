package org.cudaipc4j.base;

/** Arithmetic of memory layouts that the JDK's {@code MemoryLayout} does not do for native structures. */
public final class Layouts {
    private Layouts() {}

    /**
     * {@return {@code value} rounded up to a multiple of {@code alignment}}
     *
     * @param value a size or an address
     * @param alignment a power of two
     */
    public static long alignUp(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
