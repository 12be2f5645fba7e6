package org.cudaipc4j.cuda;

/**
 * Device memory owned by a context: a range of device addresses that this resource allocated or mapped, usable
 * until it is closed.
 */
abstract sealed class DeviceRange extends ContextResource implements DeviceMemory
        permits DeviceBuffer, PoolBuffer, VmmAllocation, IpcMappedMemory, VmmMapping, ChunkedVmmMapping {
    final long address;
    final long bytes;

    DeviceRange(Context context, long address, long bytes) {
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
