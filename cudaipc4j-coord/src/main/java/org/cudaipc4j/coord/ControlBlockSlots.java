package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.ControlBlockLayout.HEADER;
import static org.cudaipc4j.coord.ControlBlockLayout.SLOT_HEADER;
import static org.cudaipc4j.coord.ControlBlockLayout.SLOT_HEARTBEAT;
import static org.cudaipc4j.coord.ControlBlockLayout.SLOT_PID;
import static org.cudaipc4j.coord.ControlBlockLayout.SLOT_STATUS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * The per-process slots of a control block: where each slot lies, the pid, status and heartbeat words of its
 * header (release writes, acquire reads), claiming a slot, and the application's slot data. Thread-safe: its state
 * is fixed at construction and every shared word is read and written atomically.
 */
final class ControlBlockSlots {
    private final MemorySegment mem;
    private final String name;
    private final int processCount;
    private final MemoryLayout slotData;
    private final long slotSize;

    ControlBlockSlots(MemorySegment mem, String name, int processCount, MemoryLayout slotData) {
        this.mem = mem;
        this.name = name;
        this.processCount = processCount;
        this.slotData = slotData;
        this.slotSize = ControlBlockLayout.slotSize(slotData);
    }

    /** The byte offset of slot {@code process}. */
    long slot(int process) {
        checkProcess(process);
        return HEADER.byteSize() + process * slotSize;
    }

    void checkProcess(int process) {
        if (process < 0 || process >= processCount) {
            throw new IndexOutOfBoundsException("process " + process + " out of range 0.." + (processCount - 1));
        }
    }

    MemorySegment slotData(int process) {
        return mem.asSlice(slot(process) + SLOT_HEADER.byteSize(), slotData.byteSize(), slotData.byteAlignment());
    }

    void setPid(int process, long pid) {
        SLOT_PID.setRelease(mem, slot(process), pid);
    }

    long pid(int process) {
        return (long) SLOT_PID.getAcquire(mem, slot(process));
    }

    /** Claims slot {@code process} for {@code pid} (see {@link ControlBlock#claimSlot}). */
    void claimSlot(int process, long pid) {
        long base = slot(process);
        while (true) {
            long holder = (long) SLOT_PID.getAcquire(mem, base);
            if (holder == pid) {
                return;
            }
            if (holder != 0 && Pids.isAlive(holder)) {
                throw new CoordinationException("process slot " + process + " of control block " + name
                        + " is already taken by pid " + holder);
            }
            if (SLOT_PID.compareAndSet(mem, base, holder, pid)) {
                return;
            }
        }
    }

    void setStatus(int process, ProcessStatus status) {
        SLOT_STATUS.setRelease(mem, slot(process), status.code());
    }

    ProcessStatus status(int process) {
        return ProcessStatus.ofCode((int) SLOT_STATUS.getAcquire(mem, slot(process)));
    }

    void heartbeat(int process) {
        SLOT_HEARTBEAT.setRelease(mem, slot(process), System.currentTimeMillis());
    }

    long lastHeartbeatMillis(int process) {
        return (long) SLOT_HEARTBEAT.getAcquire(mem, slot(process));
    }
}
