package org.cudaipc4j.coord;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.cudaipc4j.coord.ControlBlock.LINE;
import static org.cudaipc4j.coord.ControlBlock.MAX_PROCESSES;
import static org.cudaipc4j.coord.ControlBlock.MAX_REASON_BYTES;
import static org.cudaipc4j.coord.ControlBlock.PAGE;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * The control block's layout, described once: the header and slot header as {@link MemoryLayout}s (published as
 * {@link ControlBlock#HEADER} and {@link ControlBlock#SLOT_HEADER}), the var handles and offsets taken from them, the
 * codes stored in its words, and the block's size for a group. Checks at class initialisation that every hot word
 * starts its own line.
 */
final class ControlBlockLayout {
    /** The block's header: the group's facts, then its hot words, each on its own line. */
    static final StructLayout HEADER = MemoryLayout.structLayout(
            JAVA_LONG.withName("magic"),
            JAVA_INT.withName("version"),
            JAVA_INT.withName("processCount"),
            JAVA_LONG.withName("totalSize"),
            JAVA_LONG.withName("creatorPid"),
            JAVA_LONG.withName("runToken"),
            JAVA_LONG.withName("createdMillis"),
            JAVA_INT.withName("assignment"),
            JAVA_INT.withName("slotDataSize"),
            JAVA_LONG.withName("slotFormat"),
            JAVA_LONG.withName("parentHeartbeat"),
            MemoryLayout.paddingLayout(LINE - 72),
            JAVA_INT.withName("barrierCount"), MemoryLayout.paddingLayout(LINE - 4),
            JAVA_INT.withName("barrierSense"), MemoryLayout.paddingLayout(LINE - 4),
            JAVA_INT.withName("barrierSleepers"), MemoryLayout.paddingLayout(LINE - 4),
            JAVA_LONG.withName("ready"), MemoryLayout.paddingLayout(LINE - 8),
            JAVA_INT.withName("abortWord"),
            JAVA_INT.withName("abortReasonReady"),
            JAVA_INT.withName("abortReasonLength"),
            MemoryLayout.sequenceLayout(MAX_REASON_BYTES, JAVA_BYTE).withName("abortReason"),
            MemoryLayout.paddingLayout(2 * LINE - 12 - MAX_REASON_BYTES)).withName("ControlBlockHeader");

    /** The part of every slot the block itself uses; the application's slot data follows it. */
    static final StructLayout SLOT_HEADER = MemoryLayout.structLayout(
            JAVA_LONG.withName("pid"),
            JAVA_INT.withName("status"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("heartbeat"),
            MemoryLayout.paddingLayout(LINE - 24)).withName("ControlBlockSlotHeader");

    static final VarHandle MAGIC_WORD = header("magic");
    static final VarHandle VERSION = header("version");
    static final VarHandle PROCESS_COUNT = header("processCount");
    static final VarHandle TOTAL_SIZE = header("totalSize");
    static final VarHandle CREATOR_PID = header("creatorPid");
    static final VarHandle RUN_TOKEN = header("runToken");
    static final VarHandle CREATED_MILLIS = header("createdMillis");
    static final VarHandle ASSIGNMENT = header("assignment");
    static final VarHandle SLOT_DATA_SIZE = header("slotDataSize");
    static final VarHandle SLOT_FORMAT = header("slotFormat");
    static final VarHandle PARENT_HEARTBEAT = header("parentHeartbeat");
    static final VarHandle BARRIER_COUNT = header("barrierCount");
    static final VarHandle BARRIER_SENSE = header("barrierSense");
    static final VarHandle BARRIER_SLEEPERS = header("barrierSleepers");
    static final VarHandle READY_WORD = header("ready");
    static final VarHandle ABORT_WORD = header("abortWord");
    static final VarHandle ABORT_REASON_READY = header("abortReasonReady");
    static final VarHandle ABORT_REASON_LENGTH = header("abortReasonLength");
    static final long ABORT_REASON_OFFSET = HEADER.byteOffset(groupElement("abortReason"));
    static final long BARRIER_SENSE_OFFSET = HEADER.byteOffset(groupElement("barrierSense"));
    static final VarHandle SLOT_PID = SLOT_HEADER.varHandle(groupElement("pid"));
    static final VarHandle SLOT_STATUS = SLOT_HEADER.varHandle(groupElement("status"));
    static final VarHandle SLOT_HEARTBEAT = SLOT_HEADER.varHandle(groupElement("heartbeat"));

    /** The ready word once the parent has published. */
    static final long READY = 1;
    /** The assignment word once the parent has published the assignment. */
    static final int ASSIGNED = 1;
    /** The assignment word once the parent has sent the children home. */
    static final int DISMISSED = 2;

    static {
        checkLayout();
    }

    private ControlBlockLayout() {}

    private static VarHandle header(String field) {
        return HEADER.varHandle(groupElement(field));
    }

    /** A slot: its header, then the application's data, padded to a whole line. */
    static long slotSize(MemoryLayout slotData) {
        return SLOT_HEADER.byteSize() + (slotData.byteSize() + LINE - 1) / LINE * LINE;
    }

    /** The size of a block: header and slots, rounded up to whole pages. */
    static long sizeFor(int processCount, MemoryLayout slotData) {
        checkCount(processCount);
        checkSlotData(slotData);
        long used = HEADER.byteSize() + processCount * slotSize(slotData);
        return (used + PAGE - 1) / PAGE * PAGE;
    }

    /**
     * The 4-byte word at {@code offset} of {@code mem} as a raw address for the kernel (futex). Not tied to the
     * mapping's arena, so a concurrent close cannot fail on it; a wait on an unmapped address returns at once (EFAULT).
     */
    @SuppressWarnings("restricted") // the address lies inside the block's own mapping
    static MemorySegment word(MemorySegment mem, long offset) {
        return MemorySegment.ofAddress(mem.address() + offset).reinterpret(4);
    }

    static void checkCount(int processCount) {
        if (processCount < 1 || processCount > MAX_PROCESSES) {
            throw new IllegalArgumentException("process count must be 1 to " + MAX_PROCESSES + ", got " + processCount);
        }
    }

    static void checkSlotData(MemoryLayout slotData) {
        if (slotData.byteAlignment() > LINE) {
            throw new IllegalArgumentException("slot data may be aligned to at most " + LINE + " bytes, "
                    + slotData + " asks for " + slotData.byteAlignment());
        }
        if (slotData.byteSize() > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("slot data of " + slotData.byteSize() + " bytes is too large");
        }
    }

    /** Every hot word alone on its line, and slots line-aligned: the layouts above must keep these. */
    static void checkLayout() {
        for (String hot : new String[] {"barrierCount", "barrierSense", "barrierSleepers", "ready", "abortWord"}) {
            if (HEADER.byteOffset(groupElement(hot)) % LINE != 0) {
                throw new ExceptionInInitializerError("control block word " + hot + " must start its own line");
            }
        }
        if (HEADER.byteSize() % LINE != 0 || SLOT_HEADER.byteSize() % LINE != 0) {
            throw new ExceptionInInitializerError("control block header and slot header must fill whole lines");
        }
    }
}
