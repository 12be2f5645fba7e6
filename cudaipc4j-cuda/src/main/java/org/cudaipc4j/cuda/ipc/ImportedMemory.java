package org.cudaipc4j.cuda.ipc;

import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;

/**
 * One use of memory another process shared, mapped by a {@link MemoryImporter}: the importer keeps one mapping per
 * export and counts its uses. {@link #close()} ends this use; the mapping stays cached for the next until the
 * importer evicts it. Valid until closed; thread-safe.
 */
public final class ImportedMemory implements DeviceMemory, AutoCloseable {
    private final MemoryImporter importer;
    private final MemoryImporter.Entry entry;
    private final AtomicBoolean closed = new AtomicBoolean();

    ImportedMemory(MemoryImporter importer, MemoryImporter.Entry entry) {
        this.importer = importer;
        this.entry = entry;
    }

    @Override
    public long address() {
        if (closed.get()) {
            throw new IllegalStateException("this use of " + entry.descriptor() + " is closed");
        }
        return entry.mapping().address();
    }

    @Override
    public long bytes() {
        return entry.mapping().bytes();
    }

    @Override
    public Context context() {
        return entry.mapping().context();
    }

    /** {@return the descriptor it was mapped from} */
    public SharedMemoryDescriptor descriptor() {
        return entry.descriptor();
    }

    /**
     * {@return the mapping itself: an {@link IpcMappedMemory}, a {@link VmmMapping} or an imported {@link PoolBuffer}}
     */
    public DeviceMemory mapping() {
        return entry.mapping();
    }

    /** Ends this use. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            importer.release(entry);
        }
    }

    @Override
    public String toString() {
        return "imported " + entry.descriptor();
    }
}
