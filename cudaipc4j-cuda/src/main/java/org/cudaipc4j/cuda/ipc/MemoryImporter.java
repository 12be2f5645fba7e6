package org.cudaipc4j.cuda.ipc;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.DeviceMemory;

/**
 * Maps memory other processes shared ({@link SharedMemoryDescriptor} and the file descriptors that came with it)
 * into one context, on any path, and caches the mappings: an export is mapped once per context (as the legacy path
 * requires) and a later {@link #map} of it costs a lookup. A pool is imported once, its buffers then one by one.
 *
 * <p>The cache is bounded: mappings nobody uses are kept, up to {@code maxUnused}, and the least recently used
 * beyond that are unmapped. {@link #evict} unmaps one export as soon as it is unused (do it before the exporter
 * frees the memory); {@link #close()} unmaps everything. File descriptors stay the caller's: the driver takes its
 * own reference, so close them after {@link #map} returns. Thread-safe.
 */
public final class MemoryImporter implements AutoCloseable {
    private final Context context;
    private final int maxUnused;
    /** Mappings by export, least recently used first. */
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    /** Imported pools by exporter and pool. */
    private final Map<Key, MemoryPool> pools = new LinkedHashMap<>();
    private long opens;
    private long hits;
    private boolean closed;

    private MemoryImporter(Context context, int maxUnused) {
        this.context = context;
        this.maxUnused = maxUnused;
    }

    /**
     * An importer for {@code context} that keeps at most {@code maxUnused} mappings nobody uses.
     *
     * @param context the context to map into
     * @param maxUnused how many unused mappings to keep
     * @return the importer
     */
    public static MemoryImporter open(Context context, int maxUnused) {
        if (maxUnused < 0) {
            throw new IllegalArgumentException("maxUnused must not be negative, got " + maxUnused);
        }
        return new MemoryImporter(Objects.requireNonNull(context, "context"), maxUnused);
    }

    /**
     * The driver's steps of a new mapping, in the order {@link #map(SharedMemoryDescriptor, StepListener, int...)}
     * runs them.
     */
    public enum Step {
        /** Legacy: {@code cuIpcOpenMemHandle}. */
        IPC_OPEN,
        /** VMM: the allocation imported, an address range reserved, mapped and made accessible. */
        VMM_MAP,
        /** Pool: the pool imported and its access set (once per exporter's pool and importer). */
        POOL_IMPORT,
        /** Pool: the buffer's pointer imported. */
        POINTER_IMPORT
    }

    /** Told as each step of a new mapping ends (a mapping found in the cache runs none): for timing the steps. */
    @FunctionalInterface
    public interface StepListener {
        /**
         * Called on the mapping's thread right after {@code step} ended.
         *
         * @param step the step that ended
         */
        void ended(Step step);
    }

    /** An export, named by its exporter's process token and export id (or pool id). */
    record Key(long exporterToken, long id) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.exporterToken == exporterToken && k.id == id;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(exporterToken) * 31 + Long.hashCode(id);
        }
    }

    /** A cached mapping and its uses. */
    static final class Entry {
        private final SharedMemoryDescriptor descriptor;
        private final DeviceMemory mapping;
        private int uses;

        Entry(SharedMemoryDescriptor descriptor, DeviceMemory mapping) {
            this.descriptor = descriptor;
            this.mapping = mapping;
        }

        SharedMemoryDescriptor descriptor() {
            return descriptor;
        }

        DeviceMemory mapping() {
            return mapping;
        }
    }

    /**
     * Maps the memory {@code descriptor} describes, or takes another use of the mapping made before.
     *
     * @param descriptor the descriptor received
     * @param fds the file descriptors that came with the descriptor ({@link SharedMemoryDescriptor#fileDescriptorCount()}
     *            of them); the caller keeps owning them
     * @return a use of the mapping, to close when done
     * @throws IllegalArgumentException when the descriptor and the file descriptors do not match, or this process
     *                                  exported it (map your own memory directly)
     * @throws CudaException when the driver cannot map it (a closed or foreign file descriptor, a freed export)
     */
    public ImportedMemory map(SharedMemoryDescriptor descriptor, int... fds) {
        return map(descriptor, null, fds);
    }

    /**
     * As {@link #map(SharedMemoryDescriptor, int...)}, telling {@code steps} as each driver step of a new mapping
     * ends.
     *
     * @param descriptor the descriptor received
     * @param steps told of each step, or null
     * @param fds the file descriptors that came with the descriptor; the caller keeps owning them
     * @return a use of the mapping, to close when done
     */
    public synchronized ImportedMemory map(SharedMemoryDescriptor descriptor, StepListener steps, int... fds) {
        requireOpen();
        if (fds.length != descriptor.fileDescriptorCount()) {
            throw new IllegalArgumentException(descriptor + " needs " + descriptor.fileDescriptorCount()
                    + " file descriptors, " + fds.length + " came with it");
        }
        if (descriptor.exportedHere()) {
            throw new IllegalArgumentException(descriptor + " was exported by this process: use the memory itself");
        }
        Key key = new Key(descriptor.exporterToken(), descriptor.exportId());
        Entry entry = entries.get(key);
        if (entry != null) {
            hits++;
        } else {
            entry = new Entry(descriptor, mapNew(descriptor, fds, steps));
            entries.put(key, entry);
            opens++;
        }
        entry.uses++;
        return new ImportedMemory(this, entry);
    }

    private DeviceMemory mapNew(SharedMemoryDescriptor d, int[] fds, StepListener steps) {
        DeviceMemory m = switch (d.path()) {
            case LEGACY -> openLegacy(d);
            case VMM_FD -> VmmMapping.importFileDescriptor(context, fds[0], d.bytes());
            case VMM_FABRIC -> VmmMapping.importFabricHandle(context, d.handle(), d.bytes());
            case POOL_FD, POOL_FABRIC -> {
                Key poolKey = new Key(d.exporterToken(), d.poolId());
                MemoryPool pool = pools.get(poolKey);
                if (pool == null || pool.isClosed()) {
                    byte[] h = d.handle();
                    pool = d.path() == IpcPath.POOL_FD ? MemoryPool.importFileDescriptor(context, fds[0], d.device())
                            : MemoryPool.importFabricHandle(context, java.util.Arrays.copyOfRange(h, 64, 128),
                                    d.device());
                    pools.put(poolKey, pool);
                    if (steps != null) {
                        steps.ended(Step.POOL_IMPORT);
                    }
                }
                yield pool.importBuffer(java.util.Arrays.copyOf(d.handle(), 64), d.bytes());
            }
        };
        if (steps != null) {
            steps.ended(switch (d.path()) {
                case LEGACY -> Step.IPC_OPEN;
                case VMM_FD, VMM_FABRIC -> Step.VMM_MAP;
                case POOL_FD, POOL_FABRIC -> Step.POINTER_IMPORT;
            });
        }
        return m;
    }

    private IpcMappedMemory openLegacy(SharedMemoryDescriptor d) {
        try {
            return IpcMemHandle.fromBytes(d.handle()).open(context, d.bytes(), true);
        } catch (CudaException e) {
            if (!d.fromAnotherPidNamespace()) {
                throw e;
            }
            throw new CudaException(e.call(), e.code(), e.errorName(), e.description() + "; the exporter"
                    + " (pid " + d.exporterPid() + " there) runs in another PID namespace, which legacy IPC"
                    + " handles do not cross: export VMM or pool memory and pass its file descriptor"
                    + " (IpcPath.VMM_FD, IpcPath.POOL_FD)");
        }
    }

    /** One use ended: keep the mapping cached, within the bound. */
    synchronized void release(Entry entry) {
        entry.uses--;
        trim();
    }

    /** Unmaps the least recently used mappings nobody uses while there are more than the bound. */
    private void trim() {
        int unused = 0;
        for (Entry e : entries.values()) {
            if (e.uses == 0) {
                unused++;
            }
        }
        for (Iterator<Entry> it = entries.values().iterator(); unused > maxUnused && it.hasNext(); ) {
            Entry e = it.next();
            if (e.uses == 0) {
                it.remove();
                unused--;
                unmap(e);
            }
        }
    }

    private static void unmap(Entry e) {
        if (e.mapping instanceof AutoCloseable c) {
            Closing.closeAll(c);
        }
    }

    /**
     * Unmaps the export of {@code descriptor} now, so that its exporter may free it.
     *
     * @param descriptor the descriptor of the export
     * @return false when it was not mapped
     * @throws IllegalStateException while it is in use
     */
    public synchronized boolean evict(SharedMemoryDescriptor descriptor) {
        Key key = new Key(descriptor.exporterToken(), descriptor.exportId());
        Entry e = entries.get(key);
        if (e == null) {
            return false;
        }
        if (e.uses > 0) {
            throw new IllegalStateException(descriptor + " is still in use (" + e.uses + " uses)");
        }
        entries.remove(key);
        unmap(e);
        return true;
    }

    /** {@return how many exports are mapped now} */
    public synchronized int mapped() {
        return entries.size();
    }

    /** {@return how many maps opened a new mapping, and how many found one in the cache} */
    public synchronized long[] opensAndHits() {
        return new long[] {opens, hits};
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the memory importer is closed");
        }
    }

    /** Unmaps every mapping (in use or not), then drops the imported pools. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> order = new ArrayList<>();
        for (Entry e : new ArrayList<>(entries.values()).reversed()) {
            if (e.mapping instanceof AutoCloseable c) {
                order.add(c);
            }
        }
        order.addAll(new ArrayList<>(pools.values()).reversed());
        entries.clear();
        pools.clear();
        Closing.closeAll(order.toArray(AutoCloseable[]::new));
    }
}
