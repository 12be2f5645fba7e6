package org.cudaipc4j.interop.opening;

import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ForeignResource;
import org.cudaipc4j.interop.TensorLayout;

/**
 * Memory another process shared, opened here by {@link Descriptors#open}: its bytes (the {@link DeviceMemory}
 * operations read and write them, {@code copyTo} to the host) and the tensor's layout over them. It owns everything
 * its open took: the mapping, its sign-in in the exporter's holder table, a torch share's lease (its slot), a torch
 * reader of its own. {@link #close()} (or its context's close, whichever comes first) waits for the context's work,
 * unmaps, signs out of the holder table and gives a torch share's slot back, once; a failure of one step does not
 * keep the others from running. A descriptor of 0 bytes (an empty torch storage) maps nothing.
 */
public final class OpenedTensor extends ForeignResource implements DeviceMemory {
    private final long address;
    private final long bytes;
    private final TensorLayout layout;
    private final boolean cacheHit;
    /** Whether closing waits for the context's work first (a torch view waits by itself). */
    private final boolean synchronizeFirst;
    /** What the open took, in the order it is given back. */
    private final AutoCloseable[] owned;

    /**
     * An opened tensor over {@code bytes} at {@code address}, owning {@code owned} (closed in that order).
     *
     * @param synchronizeFirst whether closing waits for the context's work before the first of {@code owned} (a
     *                         torch view waits by itself)
     */
    OpenedTensor(Context context, long address, long bytes, TensorLayout layout, boolean cacheHit,
            boolean synchronizeFirst, AutoCloseable... owned) {
        super(context);
        this.address = address;
        this.bytes = bytes;
        this.layout = layout;
        this.cacheHit = cacheHit;
        this.synchronizeFirst = synchronizeFirst;
        this.owned = owned;
    }

    /** The device address of the first byte (0 when nothing is mapped). */
    @Override
    public long address() {
        requireOpen();
        return address;
    }

    /** The size the descriptor names (for a torch share, its storage's). */
    @Override
    public long bytes() {
        return bytes;
    }

    /** {@return dtype, shape, strides and offset of the tensor over the bytes; null when the descriptor names none} */
    public TensorLayout layout() {
        return layout;
    }

    /**
     * {@return true when a torch share's storage was open in the reader already (the open mapped nothing new and
     * gave its slot back at once)}
     */
    public boolean cacheHit() {
        return cacheHit;
    }

    /** Waits for the context's work (no read of the mapping may still run when it goes), then gives all back. */
    @Override
    protected void releaseResource() {
        RuntimeException failure = null;
        if (synchronizeFirst) {
            try {
                context().synchronize();
            } catch (RuntimeException e) {
                failure = e; // a context with a sticky error: what the open took goes back all the same
            }
        }
        try {
            Closing.closeAll(owned);
        } catch (RuntimeException e) {
            failure = Closing.firstOf(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "opened tensor of " + bytes + " bytes" + (layout != null ? " (" + layout + ")" : "");
    }
}
