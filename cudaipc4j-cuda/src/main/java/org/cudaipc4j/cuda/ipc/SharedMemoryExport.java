package org.cudaipc4j.cuda.ipc;

import org.cudaipc4j.base.Libc;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;

/**
 * One export of shareable memory: the {@link SharedMemoryDescriptor} to send, and the file descriptors to send
 * with it (none for the legacy and fabric paths). The export owns the descriptors: {@link #close()} closes them,
 * once they have been sent (the receiver gets copies of its own). Not thread-safe.
 */
public final class SharedMemoryExport implements AutoCloseable {
    private final SharedMemoryDescriptor descriptor;
    private final int[] fds;
    private boolean closed;

    SharedMemoryExport(SharedMemoryDescriptor descriptor, int[] fds) {
        if (fds.length != descriptor.fileDescriptorCount()) {
            throw new IllegalArgumentException("descriptor expects " + descriptor.fileDescriptorCount()
                    + " file descriptors, got " + fds.length);
        }
        this.descriptor = descriptor;
        this.fds = fds.clone();
    }

    /**
     * Exports {@code memory} for another process to map (with a {@link MemoryImporter}): a {@link DeviceBuffer} by its
     * legacy IPC handle ({@link IpcMemHandle#export}), a {@link VmmAllocation} or a {@link PoolBuffer} by its own
     * {@code export()}. The export owns the file descriptors it made; close it once they have been sent.
     *
     * @param memory memory this process allocated
     * @return the export
     * @throws IllegalArgumentException for any other memory: a mapping of another process's memory, a slice, a view
     * @throws IllegalStateException when the memory is closed, or cannot be exported (see each kind's export)
     */
    public static SharedMemoryExport of(DeviceMemory memory) {
        return switch (memory) {
            case DeviceBuffer buffer -> new SharedMemoryExport(SharedMemoryDescriptor.of(IpcPath.LEGACY, buffer,
                    IpcMemHandle.export(buffer).toBytes(), 0, 0), new int[0]);
            case VmmAllocation allocation -> allocation.export();
            case PoolBuffer buffer -> buffer.export();
            default -> throw new IllegalArgumentException(memory + " cannot be exported: only a DeviceBuffer, a"
                    + " VmmAllocation or a PoolBuffer of this process can");
        };
    }

    /** {@return the descriptor, to send over any channel} */
    public SharedMemoryDescriptor descriptor() {
        return descriptor;
    }

    /**
     * {@return the file descriptors to send with the descriptor, in order}
     *
     * @throws IllegalStateException once closed
     */
    public int[] fileDescriptors() {
        if (closed) {
            throw new IllegalStateException("the export's file descriptors are closed");
        }
        return fds.clone();
    }

    /** Closes the file descriptors. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (int fd : fds) {
                Libc.close(fd);
            }
        }
    }
}
