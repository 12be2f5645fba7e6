package org.cudaipc4j.simpleipc;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.UUID;
import org.cudaipc4j.coord.ControlBlock;

/**
 * What a simpleIPC process's control-block slot holds (the application's part of a
 * {@link org.cudaipc4j.coord.ControlBlock} slot): what names the buffer the parent made for it (a legacy handle, or
 * a memory descriptor whose file descriptor travels over the group's socket), its event's handle, and its device,
 * by UUID (the same in every process) and by the parent's ordinal (for messages only).
 */
final class SimpleIpcSlot {
    /** Size of a CUDA IPC handle ({@code CUipcMemHandle}, {@code CUipcEventHandle}). */
    static final int HANDLE_BYTES = 64;
    /** Room for what names a buffer: a legacy handle or a memory descriptor. */
    static final int MEMORY_BYTES = 256;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(MEMORY_BYTES, JAVA_BYTE).withName("memoryHandle"),
            JAVA_INT.withName("memoryHandleLength"),
            MemoryLayout.paddingLayout(4),
            MemoryLayout.sequenceLayout(HANDLE_BYTES, JAVA_BYTE).withName("eventHandle"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("deviceUuid"),
            JAVA_INT.withName("deviceOrdinal"),
            JAVA_INT.withName("writes")).withName("SimpleIpcSlot");

    private static final long MEMORY_HANDLE = LAYOUT.byteOffset(groupElement("memoryHandle"));
    private static final long EVENT_HANDLE = LAYOUT.byteOffset(groupElement("eventHandle"));
    private static final long DEVICE_UUID = LAYOUT.byteOffset(groupElement("deviceUuid"));
    private static final VarHandle DEVICE_ORDINAL = LAYOUT.varHandle(groupElement("deviceOrdinal"));
    private static final VarHandle MEMORY_LENGTH = LAYOUT.varHandle(groupElement("memoryHandleLength"));
    /** Completed writes into this slot's buffer ({@code --sync counters}): a device waits on it, any process may set it. */
    static final long WRITES = LAYOUT.byteOffset(groupElement("writes"));
    private static final VarHandle WRITES_WORD = LAYOUT.varHandle(groupElement("writes"));
    /** What every counter is set to when the group aborts: every wait on it is over (waits compare as at least). */
    static final int RELEASED = Integer.MAX_VALUE;

    private SimpleIpcSlot() {}

    static void setDevice(MemorySegment slot, UUID uuid, int ordinal) {
        // Big-endian, as the driver's 16 bytes read.
        slot.set(JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), DEVICE_UUID, uuid.getMostSignificantBits());
        slot.set(JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), DEVICE_UUID + 8,
                uuid.getLeastSignificantBits());
        DEVICE_ORDINAL.set(slot, 0L, ordinal);
    }

    static UUID deviceUuid(MemorySegment slot) {
        return new UUID(slot.get(JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), DEVICE_UUID),
                slot.get(JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), DEVICE_UUID + 8));
    }

    /** The parent's ordinal of the device, for messages. */
    static int deviceOrdinal(MemorySegment slot) {
        return (int) DEVICE_ORDINAL.get(slot, 0L);
    }

    /** Sets the slot's write counter to {@link #RELEASED} (a plain store, visible to devices polling it). */
    static void release(MemorySegment slot) {
        WRITES_WORD.setVolatile(slot, 0L, RELEASED);
    }

    /**
     * When this process aborts the group (a failure seen by the supervisor or a sibling, a timeout, a shutdown, a
     * parent gone), every counter a device may wait on is set to {@link #RELEASED}: the streams of every process run
     * out at once, and the processes can end without waiting for work that will never come.
     */
    static void releaseCountersOnAbort(ControlBlock block) {
        block.onAbort(() -> {
            for (int p = 0; p < block.processCount(); p++) {
                release(block.slotData(p));
            }
        });
    }

    /** The offsets of every process's write counter in the block's whole mapping. */
    static long[] counterOffsets(ControlBlock block) {
        long base = block.segment().memory().address();
        long[] offsets = new long[block.processCount()];
        for (int p = 0; p < offsets.length; p++) {
            offsets[p] = block.slotData(p).address() - base + WRITES;
        }
        return offsets;
    }

    static void setHandles(MemorySegment slot, byte[] memoryHandle, byte[] eventHandle) {
        if (memoryHandle.length < 1 || memoryHandle.length > MEMORY_BYTES) {
            throw new IllegalArgumentException("a memory handle of " + memoryHandle.length + " bytes does not fit"
                    + " the slot's " + MEMORY_BYTES);
        }
        MemorySegment.copy(memoryHandle, 0, slot, JAVA_BYTE, MEMORY_HANDLE, memoryHandle.length);
        MEMORY_LENGTH.set(slot, 0L, memoryHandle.length);
        put(slot, EVENT_HANDLE, eventHandle, "event");
    }

    static byte[] memoryHandle(MemorySegment slot) {
        int length = (int) MEMORY_LENGTH.get(slot, 0L);
        if (length < 1 || length > MEMORY_BYTES) {
            throw new IllegalStateException("slot holds no memory handle (length " + length + ")");
        }
        return slot.asSlice(MEMORY_HANDLE, length).toArray(JAVA_BYTE);
    }

    static byte[] eventHandle(MemorySegment slot) {
        return slot.asSlice(EVENT_HANDLE, HANDLE_BYTES).toArray(JAVA_BYTE);
    }

    private static void put(MemorySegment slot, long offset, byte[] handle, String kind) {
        if (handle == null || handle.length != HANDLE_BYTES) {
            throw new IllegalArgumentException(kind + " IPC handle must be " + HANDLE_BYTES + " bytes, got "
                    + (handle == null ? "null" : handle.length));
        }
        MemorySegment.copy(handle, 0, slot, JAVA_BYTE, offset, HANDLE_BYTES);
    }
}
