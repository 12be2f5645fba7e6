package org.cudaipc4j.interop.torch;

import java.util.HashMap;
import java.util.Map;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.IpcEventHandle;
import org.cudaipc4j.cuda.IpcMappedMemory;
import org.cudaipc4j.cuda.IpcMemHandle;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.TorchHandle;

/**
 * Opens what torch shares into {@link TorchTensorView}s of one {@link Context}, keeping torch's contract as its own
 * reader does, and better: each block of torch's caching allocator is mapped once (tensors in one block carry the
 * same {@code 'c'} handle), the producer's event is waited on for every share, also one whose storage is open
 * already (torch's reader skips that wait and can read stale bytes after an in-place update), and the slots are
 * held through {@link TorchLeases}, whose watcher gives them back if this JVM dies.
 *
 * <p>Legacy ({@code 'c'}, and raw) handles open here; expandable segments ({@code 'e'}) are refused for now with a
 * message that says so. Thread-safe.
 */
public final class TorchReader {
    private final Context context;
    private final TorchLeases leases;
    private final Map<String, Mapping> mappings = new HashMap<>();

    /** A reader of shares into {@code context}, leasing through {@code leases} (the caller owns both). */
    public TorchReader(Context context, TorchLeases leases) {
        this.context = context;
        this.leases = leases;
    }

    /** One mapped block and the views over it. */
    static final class Mapping {
        final String key;
        final IpcMappedMemory memory;
        int views;

        Mapping(String key, IpcMappedMemory memory) {
            this.key = key;
            this.memory = memory;
        }
    }

    /**
     * Maps {@code share}'s storage and makes {@code stream} wait on the producer's event when the share asks for it.
     *
     * @throws TorchInteropException when its counter file is missing or foreign, its slot was given back already, or
     *                               it is an expandable segment
     * @throws IllegalArgumentException when the storage lies outside the mapped block
     */
    public synchronized TorchTensorView open(TorchShare share, Stream stream) {
        if (share.isEmpty()) {
            return new TorchTensorView(context, this, null, null, 0, 0, share.tensor());
        }
        TorchHandle h = share.handle();
        if (h.type() != TorchHandle.Type.CUDA_MALLOC) {
            throw new TorchInteropException("opening torch's expandable segments ('e' handles) is not supported yet: "
                    + h.describe() + "; share from a producer with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False");
        }
        Lease lease = leases.acquire(share);
        Mapping m = null;
        try {
            m = mappings.get(h.mappingKey());
            if (m == null) {
                m = new Mapping(h.mappingKey(), IpcMemHandle.fromBytes(h.ipcMemHandle()).open(context, true));
                mappings.put(m.key, m);
            }
            if (share.storageOffsetBytes() + share.storageBytes() > m.memory.bytes()) {
                throw new IllegalArgumentException("the torch storage of " + share.storageBytes() + " bytes at offset "
                        + share.storageOffsetBytes() + " ends beyond its block of " + m.memory.bytes() + " bytes");
            }
            if (share.eventSyncRequired()) {
                try (Event e = IpcEventHandle.fromBytes(share.eventHandle()).open(context)) {
                    stream.waitEvent(e);
                }
            }
            m.views++;
            return new TorchTensorView(context, this, m, lease, m.memory.address() + share.storageOffsetBytes(),
                    share.storageBytes(), share.tensor());
        } catch (RuntimeException e) {
            if (m != null && m.views == 0) {
                mappings.remove(m.key);
                m.memory.close();
            }
            lease.release();
            throw e;
        }
    }

    /** A view closed: wait for the context's work, unmap after the block's last view, then give the slot back. */
    synchronized void closed(TorchTensorView view, Mapping m, Lease lease) {
        if (m == null) {
            return;
        }
        try {
            context.synchronize();
            if (--m.views == 0) {
                mappings.remove(m.key);
                m.memory.close();
            }
        } finally {
            lease.release();
        }
    }

    /** Blocks mapped now. */
    public synchronized int mappedBlocks() {
        return mappings.size();
    }
}
