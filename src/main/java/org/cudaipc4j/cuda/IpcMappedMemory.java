package org.cudaipc4j.cuda;

import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.driver.CuDriver;

/** Another process's allocation, mapped into this process by {@link IpcMemHandle#open}. */
public final class IpcMappedMemory implements DeviceMemory, AutoCloseable {
    private final Context context;
    private final IpcMemHandle.OpenKey key;
    private final long address;
    private final long bytes;
    private final AtomicBoolean closed = new AtomicBoolean();

    IpcMappedMemory(Context context, IpcMemHandle.OpenKey key, long address, long bytes) {
        this.context = context;
        this.key = key;
        this.address = address;
        this.bytes = bytes;
    }

    /** The handle this mapping was opened from. */
    public IpcMemHandle handle() {
        return key.handle();
    }

    @Override
    public long address() {
        if (closed.get()) {
            throw new IllegalStateException("IPC mapping of " + bytes + " bytes is closed");
        }
        return address;
    }

    @Override
    public long bytes() {
        return bytes;
    }

    @Override
    public Context context() {
        return context;
    }

    /** Unmaps ({@code cuIpcCloseMemHandle}), exactly once; later calls do nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            context.makeCurrent();
            Cu.check("cuIpcCloseMemHandle", CuDriver.cuIpcCloseMemHandle(address));
        } finally {
            IpcMemHandle.closed(key);
        }
    }

    @Override
    public String toString() {
        return "IPC mapping of " + bytes + " bytes on " + context.device();
    }
}
