package org.cudaipc4j.cuda;

import java.util.Objects;

/**
 * A part of another {@link DeviceMemory}: {@code bytes} bytes from {@code offset}. It owns nothing; it is valid while
 * the memory it slices is open, and reads that memory's address on every use, so a closed parent fails it.
 *
 * @param parent the memory sliced
 * @param offset the first byte, within the parent
 * @param bytes the length
 */
public record DeviceSlice(DeviceMemory parent, long offset, long bytes) implements DeviceMemory {
    /** Checks that the slice lies within its parent. */
    public DeviceSlice {
        Objects.requireNonNull(parent, "parent");
        Objects.checkFromIndexSize(offset, bytes, parent.bytes());
    }

    @Override
    public long address() {
        return parent.address() + offset;
    }

    @Override
    public Context context() {
        return parent.context();
    }
}
