package org.cudaipc4j.nccl;

import java.lang.foreign.MemorySegment;
import org.cudaipc4j.cuda.DeviceMemory;

/**
 * Device memory registered with a {@link Communicator} ({@code ncclCommRegister}), which lets NCCL use it without
 * copies through its own buffers where the transport allows. Owned by the communicator: closing the communicator
 * first deregisters it; closing it deregisters it ({@code ncclCommDeregister}). The memory must stay open while
 * registered.
 */
public final class BufferRegistration implements AutoCloseable {
    private final Communicator communicator;
    private final DeviceMemory memory;
    private final MemorySegment handle;
    private boolean closed;

    BufferRegistration(Communicator communicator, DeviceMemory memory, MemorySegment handle) {
        this.communicator = communicator;
        this.memory = memory;
        this.handle = handle;
    }

    /** {@return the memory registered} */
    public DeviceMemory memory() {
        return memory;
    }

    MemorySegment handle() {
        return handle;
    }

    /** Deregisters, once; does nothing after the communicator was closed or aborted. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        communicator.deregister(this);
    }
}
