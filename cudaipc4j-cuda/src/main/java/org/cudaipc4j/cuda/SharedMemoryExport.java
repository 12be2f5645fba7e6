package org.cudaipc4j.cuda;

import org.cudaipc4j.base.Libc;

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
