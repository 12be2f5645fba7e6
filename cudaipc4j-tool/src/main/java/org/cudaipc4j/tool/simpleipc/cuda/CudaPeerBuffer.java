package org.cudaipc4j.tool.simpleipc.cuda;

import org.cudaipc4j.tool.simpleipc.Backend;
import org.cudaipc4j.cuda.IpcMappedMemory;

/** A sibling's buffer opened by a {@link CudaAttachment}: an IPC mapping of the declared size. */
public final class CudaPeerBuffer implements Backend.PeerBuffer {
    private final CudaAttachment attachment;
    private final IpcMappedMemory mapping;

    CudaPeerBuffer(CudaAttachment attachment, IpcMappedMemory mapping) {
        this.attachment = attachment;
        this.mapping = mapping;
    }

    CudaAttachment attachment() {
        return attachment;
    }

    /** The mapping. */
    public IpcMappedMemory mapping() {
        return mapping;
    }

    @Override
    public long bytes() {
        return mapping.bytes();
    }

    /** Unmaps the buffer. Idempotent. */
    @Override
    public void close() {
        mapping.close();
    }

    @Override
    public String toString() {
        return "peer buffer of " + mapping.bytes() + " bytes";
    }
}
