package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.cuda.driver.CuDriver;

/**
 * Device memory from {@code cuMemAlloc_v2}: the only kind {@code cuIpcGetMemHandle} can export. Owned by its
 * {@link Context} (closed with it at the latest). Reads of its address and size are thread-safe; see
 * {@link DeviceMemory} for the operations.
 */
public final class DeviceBuffer extends DeviceRange implements ShareableMemory {
    private volatile IpcMemHandle exported;

    private DeviceBuffer(Context context, long address, long bytes) {
        super(context, address, bytes);
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
            CuDriver.MEM_ALLOC.check(out, bytes);
            address = out.get(JAVA_LONG, 0);
        }
        try {
            return new DeviceBuffer(context, address, bytes);
        } catch (RuntimeException e) {
            Cu.suppress(e, () -> CuDriver.MEM_FREE.check(address)); // the context began closing meanwhile
            throw e;
        }
    }

    /**
     * {@return the IPC handle of this allocation ({@code cuIpcGetMemHandle}), for another process to open} The same
     * value on every call; this process refuses to open it ({@link IpcMemHandle#open}).
     */
    public IpcMemHandle exportIpcHandle() {
        IpcMemHandle handle = exported;
        if (handle == null) {
            synchronized (this) {
                handle = exported;
                if (handle == null) {
                    long ptr = address();
                    context.makeCurrent();
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment out = arena.allocate(IpcMemHandle.LAYOUT);
                        CuDriver.IPC_GET_MEM_HANDLE.check(out, ptr);
                        handle = IpcMemHandle.fromBytes(out.toArray(JAVA_BYTE));
                    }
                    IpcMemHandle.exportedHere(handle);
                    exported = handle;
                }
            }
        }
        return handle;
    }

    /** {@return a descriptor with the legacy IPC handle; nothing else needs to travel} */
    @Override
    public SharedMemoryExport export() {
        return new SharedMemoryExport(SharedMemoryDescriptor.of(IpcPath.LEGACY, this, exportIpcHandle().toBytes(),
                0, 0), new int[0]);
    }

    /** Frees the memory ({@code cuMemFree_v2}). */
    @Override
    void release() {
        IpcMemHandle handle = exported;
        if (handle != null) {
            IpcMemHandle.noLongerExported(handle);
        }
        context.makeCurrent();
        CuDriver.MEM_FREE.check(address);
    }

    @Override
    public String toString() {
        return "device buffer of " + bytes + " bytes on " + context.device();
    }
}
