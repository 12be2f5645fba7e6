package org.cudaipc4j.backend.cuda;

import org.cudaipc4j.backend.Backend;
import org.cudaipc4j.cuda.IpcMappedMemory;

/** A sibling's buffer opened by a {@link CudaAttachment}: the IPC mapping and the byte count in use. */
public final class CudaPeerBuffer implements Backend.PeerBuffer {
    private final CudaAttachment attachment;
    private final IpcMappedMemory mapping;
    private final long bytes;

    CudaPeerBuffer(CudaAttachment attachment, IpcMappedMemory mapping, long bytes) {
        this.attachment = attachment;
        this.mapping = mapping;
        this.bytes = bytes;
    }

    CudaAttachment attachment() {
        return attachment;
    }

    /** The mapping ({@link IpcMappedMemory#bytes()} may exceed {@link #bytes()}). */
    public IpcMappedMemory mapping() {
        return mapping;
    }

    @Override
    public long bytes() {
        return bytes;
    }

    /** Unmaps the buffer. Idempotent. */
    @Override
    public void close() {
        mapping.close();
    }

    @Override
    public String toString() {
        return "peer buffer of " + bytes + " bytes";
    }
}
