package org.cudaipc4j.cuda;

/**
 * Device memory another process can map: a {@link DeviceBuffer} (legacy handle), a {@link VmmAllocation} (file
 * descriptor or fabric handle) or a {@link PoolBuffer} of an exportable {@link MemoryPool}. {@link #export()} gives
 * what travels; a {@link MemoryImporter} in the other process maps it.
 */
public sealed interface ShareableMemory extends DeviceMemory permits DeviceBuffer, VmmAllocation, PoolBuffer {
    /**
     * {@return what another process needs to map this memory: a descriptor (bytes, any channel) and the file
     * descriptors that must travel with it (over a Unix socket), owned by the returned export until it is closed}
     */
    SharedMemoryExport export();
}
