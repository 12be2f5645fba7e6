package org.cudaipc4j.simpleipc.cuda;

import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.simpleipc.backend.Backend;

/** A sibling's buffer opened by a {@link CudaAttachment}: a legacy IPC mapping or an imported memory descriptor. */
public final class CudaPeerBuffer implements Backend.PeerBuffer {
    private final CudaAttachment attachment;
    private final DeviceMemory mapping;
    private final AutoCloseable owner;

    CudaPeerBuffer(CudaAttachment attachment, DeviceMemory mapping, AutoCloseable owner) {
        this.attachment = attachment;
        this.mapping = mapping;
        this.owner = owner;
    }

    CudaAttachment attachment() {
        return attachment;
    }

    /** The mapping. */
    public DeviceMemory mapping() {
        return mapping;
    }

    @Override
    public long bytes() {
        return mapping.bytes();
    }

    /** Unmaps the buffer. Idempotent. */
    @Override
    public void close() {
        Closeables.closeAll(owner);
    }

    @Override
    public String toString() {
        return "peer buffer of " + mapping.bytes() + " bytes";
    }
}
