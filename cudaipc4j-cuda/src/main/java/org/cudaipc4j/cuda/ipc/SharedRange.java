package org.cudaipc4j.cuda.ipc;

import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ForeignResource;

/**
 * Device memory of this package owned by a context: a range of device addresses that the resource allocated or
 * mapped, usable until it is closed. Owned through {@link ForeignResource}, as resources of the typed layer are.
 */
abstract sealed class SharedRange extends ForeignResource implements DeviceMemory
        permits PoolBuffer, VmmAllocation, IpcMappedMemory, VmmMapping, ChunkedVmmMapping {
    final long address;
    final long bytes;

    SharedRange(Context context, long address, long bytes) {
        super(context);
        this.address = address;
        this.bytes = bytes;
    }

    @Override
    public final long address() {
        requireOpen();
        return address;
    }

    @Override
    public final long bytes() {
        return bytes;
    }
}
