package org.cudaipc4j.simpleipc.cuda;

import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.IpcEventHandle;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.simpleipc.backend.IpcMode;

/**
 * The parent's buffer and interprocess event for one child, with what names them to the children: a legacy handle,
 * or a memory descriptor with the file descriptor of a VMM allocation or of the buffer's pool.
 */
public final class CudaExport implements Backend.Export {
    private final DeviceMemory memory;
    private final Event event;
    private final byte[] memoryHandle;
    private final SharedMemoryExport shared;
    private final byte[] eventHandle;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CudaExport(DeviceMemory memory, Event event, IpcMode mode) {
        this.memory = memory;
        this.event = event;
        this.eventHandle = IpcEventHandle.export(event).toBytes();
        if (mode == IpcMode.LEGACY) {
            this.shared = null;
            this.memoryHandle = IpcMemHandle.export((DeviceBuffer) memory).toBytes();
        } else {
            this.shared = SharedMemoryExport.of(memory);
            this.memoryHandle = shared.descriptor().toBytes();
        }
    }

    /**
     * Allocates and exports {@code bytes} in {@code context}; {@code pool} is the backend's pool for the device
     * ({@code --ipc pool}), null otherwise.
     */
    static CudaExport create(Context context, long bytes, IpcMode mode, MemoryPool pool, Stream poolStream) {
        DeviceMemory memory = null;
        Event event = null;
        try {
            memory = switch (mode) {
                case LEGACY -> DeviceBuffer.allocate(context, bytes);
                case VMM -> VmmAllocation.create(context, bytes, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
                case POOL -> pool.allocate(bytes, poolStream);
            };
            event = Event.create(context, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING);
            return new CudaExport(memory, event, mode);
        } catch (CudaException e) {
            BackendException failure = new BackendException("exporting " + bytes + " bytes on " + context.device()
                    + " (--ipc " + mode.optionName() + ") failed: " + e.getMessage(), e);
            try {
                Closeables.closeAll(event, (AutoCloseable) memory);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    @Override
    public byte[] memoryHandle() {
        return memoryHandle.clone();
    }

    @Override
    public int[] memoryFds() {
        return shared == null ? new int[0] : shared.fileDescriptors();
    }

    @Override
    public byte[] eventHandle() {
        return eventHandle.clone();
    }

    /** The exported memory (the parent may read it after the children finish). */
    public DeviceMemory memory() {
        return memory;
    }

    /** The exported interprocess event. */
    public Event event() {
        return event;
    }

    /**
     * Destroys the event, closes the file descriptors, then frees the memory. Idempotent. Call it once no process
     * uses them: every child released them (its stream synchronized first, so each of its records completed) or
     * ended. No wait is made for the event: a record that is still pending then was made by a process that ended
     * (a killed child, or one whose stream waited on such a record), and the driver never completes it; waiting only
     * delayed the parent's end by the wait's bound for each such event. Destroying an event with a record pending
     * is allowed.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Closeables.closeAll(event, shared, (AutoCloseable) memory);
        }
    }
}
