package org.cudaipc4j.interop.torch;

import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ForeignResource;
import org.cudaipc4j.interop.TensorLayout;

/**
 * A torch tensor's storage, mapped here by {@link TorchReader#open}: its device memory (the {@link DeviceMemory}
 * operations cover the storage's bytes) and its layout. Owned by its {@link Context}; {@link #close()} (or the
 * context's close) waits for the context's work, unmaps once the last view over the block closes and gives the
 * share's slot back, so the producer's {@code torch.cuda.ipc_collect()} can free the block. An empty tensor's view
 * maps nothing.
 */
public final class TorchTensorView extends ForeignResource implements DeviceMemory {
    private final TorchReader reader;
    private final TorchReader.Mapping mapping;
    private final Lease lease;
    private final long address;
    private final long bytes;
    private final TensorLayout layout;
    private final boolean cacheHit;

    TorchTensorView(Context context, TorchReader reader, TorchReader.Mapping mapping, Lease lease, long address,
            long bytes, TensorLayout layout) {
        super(context);
        this.reader = reader;
        this.mapping = mapping;
        this.lease = lease;
        this.address = address;
        this.bytes = bytes;
        this.layout = layout;
        this.cacheHit = lease != null && lease.cacheHit();
    }

    /** The device address of the storage's first byte (0 for an empty storage). */
    @Override
    public long address() {
        if (isClosed()) {
            throw new IllegalStateException(this + " is closed");
        }
        return address;
    }

    /** The storage's size. */
    @Override
    public long bytes() {
        return bytes;
    }

    /**
     * {@return dtype, shape, strides and offset of the tensor over the storage; null when only a storage was
     * shared}
     */
    public TensorLayout layout() {
        return layout;
    }

    /** {@return true when the storage was open here already (its new share's slot went back at once)} */
    public boolean cacheHit() {
        return cacheHit;
    }

    @Override
    protected void releaseResource() {
        reader.closed(this, mapping, lease);
    }

    @Override
    public String toString() {
        return "torch tensor view of " + bytes + " bytes" + (layout != null ? " (" + layout + ")" : "");
    }
}
