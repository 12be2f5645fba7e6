package org.cudaipc4j.interop.torch;

import java.util.HashMap;
import java.util.Map;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.ipc.ChunkedVmmMapping;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.ProducerEvent;
import org.cudaipc4j.interop.TorchHandle;

/**
 * Opens what torch shares into {@link TorchTensorView}s of one {@link Context}, keeping torch's contract as its own
 * reader does, and better: each block of torch's caching allocator is mapped once (tensors in one block carry the
 * same {@code 'c'} handle), the producer's event is waited on for every share, also one whose storage is open
 * already (torch's reader skips that wait and can read stale bytes after an in-place update), and the slots are
 * held through {@link TorchLeases}, whose watcher gives them back if this JVM dies.
 *
 * <p>Legacy ({@code 'c'}, and raw) handles map the caching allocator's segment with {@code cuIpcOpenMemHandle}.
 * Expandable segments ({@code 'e'}) map the chunks under the shared block as torch's own
 * {@code ExpandableSegment::fromShared} does: the producer's file descriptors taken with {@code pidfd_getfd} (same
 * user, ptrace rights over the producer, one PID namespace) or its fabric handles, imported, mapped side by side
 * into one range ({@link ChunkedVmmMapping}) and the descriptors closed. Such a block is mapped once per producer
 * process and chunk list, never keyed by the handle's bytes (their padding may be uninitialised). Each refusal of
 * the producer's descriptors is one {@link TorchInteropException} line that says why (ptrace rules, another PID
 * namespace or a gone producer, a closed descriptor, a kernel older than 5.6) and what to change. Thread-safe.
 */
public final class TorchReader {
    private final Context context;
    private final TorchLeases leases;
    private final ProducerFds producerFds;
    private final Map<String, Mapping> mappings = new HashMap<>();

    /**
     * A reader of shares into {@code context}, leasing through {@code leases} (the caller owns both).
     *
     * @param context the context the storages are mapped into
     * @param leases the leases that hold the storages' slots
     */
    public TorchReader(Context context, TorchLeases leases) {
        this(context, leases, ProducerFds.KERNEL);
    }

    /** A reader whose {@code pidfd} calls are {@code calls} (tests inject the kernel's refusals). */
    TorchReader(Context context, TorchLeases leases, ProducerFds.Syscalls calls) {
        this.context = context;
        this.leases = leases;
        this.producerFds = new ProducerFds(calls);
    }

    /** One mapped block and the views over it. */
    static final class Mapping {
        final String key;
        final DeviceMemory memory;
        private final AutoCloseable owner;
        int views;
        /** The producer of an expandable segment's chunks taken by pidfd, or null. */
        ProducerFds.Producer producer;

        Mapping(String key, IpcMappedMemory memory) {
            this.key = key;
            this.memory = memory;
            this.owner = memory;
        }

        Mapping(String key, ChunkedVmmMapping memory) {
            this.key = key;
            this.memory = memory;
            this.owner = memory;
        }

        /** Unmaps the block. */
        void close() {
            try {
                owner.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("unmapping " + owner + " failed", e);
            }
        }
    }

    /**
     * What names a mapped block in this reader. {@code 'c'}: the 64-byte IPC handle of the caching allocator's
     * segment. {@code 'e'}: never the handle's bytes (their padding may be uninitialised); the producer's pid, its
     * start time ({@code /proc/<pid>/stat}, so that a new process with a reused pid is not taken for it), the chunk
     * size and the list of chunks (fd numbers, stable while the producer keeps the block, which the held slot
     * guarantees; or fabric handles). Storages in the same chunks share a mapping; storages of one segment whose
     * chunk lists differ map their chunks separately (the producer's segment start is not on the wire).
     */
    static String blockKey(TorchHandle h) {
        return blockKey(h, h.type() == TorchHandle.Type.CUDA_MALLOC ? 0
                : TorchStorageKey.processStartTime(h.producerPid()));
    }

    /** {@link #blockKey(TorchHandle)} with the producer's start time read already (the storage key's). */
    static String blockKey(TorchHandle h, long producerStart) {
        if (h.type() == TorchHandle.Type.CUDA_MALLOC) {
            return h.mappingKey();
        }
        return h.mappingKey() + "@" + producerStart;
    }

    /**
     * Maps {@code share}'s storage and makes {@code stream} wait on the producer's event when the share asks for it.
     *
     * @param share the share to open
     * @param stream the stream that will read the tensor
     * @return the view, owned by the caller
     * @throws TorchInteropException when its counter file is missing or foreign, its slot was given back already, or
     *                               the producer's file descriptors of an expandable segment cannot be taken (the
     *                               message says why: ptrace rules, another PID namespace or a gone producer, a
     *                               closed descriptor, an old kernel) or imported
     * @throws IllegalArgumentException when the storage lies outside the mapped block
     */
    public TorchTensorView open(TorchShare share, Stream stream) {
        return open(share, stream, null);
    }

    /**
     * As {@link #open(TorchShare, Stream)}, adding the time of each phase of the open to {@code phases}.
     *
     * @param share the share to open
     * @param stream the stream that will read the tensor
     * @param phases where the phases' times are added, or null for none
     * @return the view, owned by the caller
     */
    public TorchTensorView open(TorchShare share, Stream stream, OpenPhases phases) {
        return open(share, stream, phases, null);
    }

    /**
     * As {@link #open(TorchShare, Stream, OpenPhases)}, with the chunks' file descriptors of an expandable segment
     * given, as its producer sent them over the descriptor socket ({@code cudaipc4j.sharing.send_share}) in the
     * handle's order, instead of taken with {@code pidfd_getfd}, which needs ptrace rights over the producer. They
     * stay the caller's, to close once this returns (the driver holds its own reference to what it imported).
     *
     * @param share the share to open
     * @param stream the stream that will read the tensor
     * @param phases where the phases' times are added, or null for none
     * @param chunkFds one per chunk of the share's {@code 'e'} handle of POSIX fds; null to take them by pidfd
     * @return the view, owned by the caller
     * @throws IllegalArgumentException when fds are given for another share, or not one per chunk (the slot is given
     *                                  back)
     */
    public synchronized TorchTensorView open(TorchShare share, Stream stream, OpenPhases phases, int[] chunkFds) {
        if (chunkFds != null) {
            requireChunkFds(share, chunkFds);
        }
        if (share.isEmpty()) {
            return new TorchTensorView(context, this, null, null, 0, 0, share.tensor());
        }
        OpenPhases.start(phases);
        TorchHandle h = share.handle();
        ProducerFds.Producer producer = chunkFds == null && h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT
                && h.chunkKind() == TorchHandle.ChunkKind.POSIX_FD ? producerFds.producer(h.producerPid()) : null;
        try {
            return open(share, stream, phases, producer, chunkFds);
        } finally {
            if (producer != null) {
                producerFds.release(producer); // closes its pidfd unless a block of it is mapped
            }
        }
    }

    /** Refuses fds given for a share that lists none, or not one per chunk; the share's slot goes back. */
    private void requireChunkFds(TorchShare share, int[] chunkFds) {
        TorchHandle h = share.isEmpty() ? null : share.handle();
        int chunks = h != null && h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT
                && h.chunkKind() == TorchHandle.ChunkKind.POSIX_FD ? h.fds().length : 0;
        if (chunkFds.length != chunks) {
            if (!share.isEmpty()) {
                TorchCounterFile.release(leases.counterDirectory(), share.refCounterFile(), share.refCounterSlot());
            }
            throw new IllegalArgumentException("the torch share" + (h == null ? " of an empty storage" : " of "
                    + h.describe()) + " lists " + chunks + " chunk fd(s), " + chunkFds.length + " given");
        }
    }

    private TorchTensorView open(TorchShare share, Stream stream, OpenPhases phases, ProducerFds.Producer producer,
            int[] chunkFds) {
        TorchHandle h = share.handle();
        boolean legacy = h.type() == TorchHandle.Type.CUDA_MALLOC;
        TorchStorageKey storage = TorchStorageKey.of(share, legacy ? 0
                : producer != null ? producer.start : TorchStorageKey.processStartTime(h.producerPid()));
        OpenPhases.lap(phases, OpenPhases.Phase.KEY);
        Lease lease = leases.acquire(storage, share.refCounterFile(), share.refCounterSlot(), phases);
        Mapping m = null;
        try {
            String key = blockKey(h, storage.producerStart());
            m = mappings.get(key);
            OpenPhases.lap(phases, OpenPhases.Phase.BLOCK_LOOKUP);
            if (m == null) {
                if (legacy) {
                    m = new Mapping(key, IpcMemHandle.fromBytes(h.ipcMemHandle()).open(context, true));
                    OpenPhases.lap(phases, OpenPhases.Phase.IPC_OPEN);
                } else {
                    m = new Mapping(key, mapChunks(h, producer, chunkFds, phases));
                    if (producer != null) {
                        m.producer = producer;
                        producerFds.mapped(producer);
                    }
                }
                mappings.put(m.key, m);
            }
            if (share.storageOffsetBytes() + share.storageBytes() > m.memory.bytes()) {
                throw new IllegalArgumentException("the torch storage of " + share.storageBytes() + " bytes at offset "
                        + share.storageOffsetBytes() + " ends beyond its block of " + m.memory.bytes() + " bytes");
            }
            if (share.eventSyncRequired()) {
                // On every share, also one whose storage is open here already: each share carries the event
                // recorded after the producer's last write before it.
                ProducerEvent.queueWait(context, stream, share.eventHandle(), phases);
            }
            TorchTensorView view = new TorchTensorView(context, this, m, lease,
                    m.memory.address() + share.storageOffsetBytes(), share.storageBytes(), share.tensor());
            m.views++; // counted once the view exists: a view the context refuses is no view of the block
            OpenPhases.lap(phases, OpenPhases.Phase.VIEW);
            return view;
        } catch (RuntimeException e) {
            if (m != null && m.views == 0) {
                mappings.remove(m.key);
                Mapping unmap = m;
                Closing.closeAfter(() -> unmap(unmap), e);
            }
            lease.release();
            throw e;
        }
    }

    /** Unmaps {@code m}; its producer's pidfd goes with the producer's last block. */
    private void unmap(Mapping m) {
        try {
            m.close();
        } finally {
            if (m.producer != null) {
                producerFds.unmapped(m.producer);
            }
        }
    }

    /**
     * Maps the chunks of an {@code 'e'} handle into one range, as {@code ExpandableSegment::fromShared} does: file
     * descriptors given (the caller's) or taken from the producer (and closed once imported), or fabric handles.
     */
    private ChunkedVmmMapping mapChunks(TorchHandle h, ProducerFds.Producer producer, int[] given,
            OpenPhases phases) {
        if (h.chunkKind() == TorchHandle.ChunkKind.FABRIC) {
            try {
                ChunkedVmmMapping c = ChunkedVmmMapping.importFabricHandles(context, h.fabricHandles(),
                        h.segmentSize());
                OpenPhases.lap(phases, OpenPhases.Phase.CHUNK_MAP);
                return c;
            } catch (CudaException e) {
                throw new TorchInteropException("cannot import the fabric handles of " + h.describe() + ": "
                        + e.getMessage(), e);
            }
        }
        int[] fds = given != null ? given : producerFds.take(producer, h.fds());
        OpenPhases.lap(phases, OpenPhases.Phase.PIDFD);
        ChunkedVmmMapping c;
        try {
            c = ChunkedVmmMapping.importFileDescriptors(context, fds, h.segmentSize());
        } catch (CudaException e) {
            throw new TorchInteropException("cannot import the chunks of " + h.describe() + ": " + e.getMessage()
                    + "; the descriptors taken from pid " + h.producerPid() + " are no CUDA allocations of this"
                    + " device (is that pid the producer, in this PID namespace, and is the device the producer's?)",
                    e);
        } finally {
            if (given == null) {
                producerFds.close(fds, fds.length);
            }
        }
        OpenPhases.lap(phases, OpenPhases.Phase.CHUNK_MAP);
        return c;
    }

    /**
     * A view closed: wait for the context's work, unmap after the block's last view, then give the slot back. The
     * view is counted out and the slot given back also when the wait fails (a context with a sticky error fails every
     * wait, and a block kept for a view that is gone would never be unmapped); the first failure is thrown after.
     */
    synchronized void closed(TorchTensorView view, Mapping m, Lease lease) {
        if (m == null) {
            return;
        }
        RuntimeException failure = null;
        try {
            context.synchronize();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            if (--m.views == 0) {
                mappings.remove(m.key);
                unmap(m);
            }
        } catch (RuntimeException e) {
            failure = Closing.firstOf(failure, e);
        } finally {
            lease.release();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@return the context the storages are mapped into} */
    public Context context() {
        return context;
    }

    /**
     * Blocks mapped now.
     *
     * @return the number of blocks mapped now
     */
    public synchronized int mappedBlocks() {
        return mappings.size();
    }
}
