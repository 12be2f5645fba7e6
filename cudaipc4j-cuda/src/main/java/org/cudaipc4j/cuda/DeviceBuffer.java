package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.driver.MemoryCalls;

/**
 * Device memory from {@code cuMemAlloc_v2}: the only kind {@code cuIpcGetMemHandle} can export (the sharing package,
 * {@code org.cudaipc4j.cuda.ipc}, does). Owned by its {@link Context} (closed with it at the latest). Reads of its
 * address and size are thread-safe; see {@link DeviceMemory} for the operations.
 */
public final class DeviceBuffer extends ContextResource implements DeviceMemory {
    private final long address;
    private final long bytes;

    private DeviceBuffer(Context context, long address, long bytes) {
        super(context);
        this.address = address;
        this.bytes = bytes;
    }

    /**
     * Allocates {@code bytes} (at least 1) of device memory in {@code context}.
     *
     * @param context the context that owns the memory
     * @param bytes the size in bytes
     * @return the buffer
     */
    public static DeviceBuffer allocate(Context context, long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a device buffer needs at least 1 byte, got " + bytes);
        }
        context.makeCurrent();
        long address;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemoryCalls.memAlloc(out, bytes);
            address = out.get(JAVA_LONG, 0);
        }
        try {
            return new DeviceBuffer(context, address, bytes);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> MemoryCalls.memFree(address), e); // the context began closing meanwhile
            throw e;
        }
    }

    @Override
    public long address() {
        requireOpen();
        return address;
    }

    @Override
    public long bytes() {
        return bytes;
    }

    /** Frees the memory ({@code cuMemFree_v2}). */
    @Override
    void release() {
        context.makeCurrent();
        MemoryCalls.memFree(address);
    }

    @Override
    public String toString() {
        return "device buffer of " + bytes + " bytes on " + context.device();
    }
}
