package org.cudaipc4j.cuda.ipc;

import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.driver.IpcCalls;

/**
 * Another process's {@code cuMemAlloc_v2} allocation, mapped into this process by {@link IpcMemHandle#open}.
 * Owned by its {@link Context}; see {@link DeviceMemory} for the operations. Reads of its address and size are
 * thread-safe, and {@link #close()} may be called from any thread once no other thread uses the mapping.
 */
public final class IpcMappedMemory extends SharedRange {
    private final IpcMemHandle.OpenKey key;

    IpcMappedMemory(Context context, IpcMemHandle.OpenKey key, long address, long bytes) {
        super(context, address, bytes);
        this.key = key;
    }

    /** {@return the handle this mapping was opened from} */
    public IpcMemHandle handle() {
        return key.handle();
    }

    /** Unmaps ({@code cuIpcCloseMemHandle}). */
    @Override
    protected void releaseResource() {
        try {
            context().makeCurrent();
            IpcCalls.ipcCloseMemHandle(address);
        } finally {
            IpcMemHandle.closed(key);
        }
    }

    @Override
    public String toString() {
        return "IPC mapping of " + bytes + " bytes on " + context().device();
    }
}
