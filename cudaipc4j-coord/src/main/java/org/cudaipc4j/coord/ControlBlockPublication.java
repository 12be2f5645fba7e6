package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.ControlBlockLayout.ASSIGNED;
import static org.cudaipc4j.coord.ControlBlockLayout.ASSIGNMENT;
import static org.cudaipc4j.coord.ControlBlockLayout.DISMISSED;
import static org.cudaipc4j.coord.ControlBlockLayout.READY;
import static org.cudaipc4j.coord.ControlBlockLayout.READY_WORD;

import java.lang.foreign.MemorySegment;

/**
 * What the parent publishes to its children through a control block: the assignment word (assigned or dismissed,
 * claimed by compare-and-set) and the ready word (a release write), read with acquire semantics. The children's
 * waits for them are {@link ControlBlock}'s. Thread-safe: its state is fixed at construction and every shared word
 * is atomic.
 */
final class ControlBlockPublication {
    private final MemorySegment mem;
    private final String name;

    ControlBlockPublication(MemorySegment mem, String name) {
        this.mem = mem;
        this.name = name;
    }

    void publishAssignment() {
        if (!ASSIGNMENT.compareAndSet(mem, 0L, 0, ASSIGNED)) {
            throw new IllegalStateException("control block " + name + " was already assigned or dismissed");
        }
    }

    void dismiss() {
        ASSIGNMENT.compareAndSet(mem, 0L, 0, DISMISSED);
    }

    /** {@return true once the assignment is published or the group dismissed} */
    boolean assignmentDecided() {
        return (int) ASSIGNMENT.getAcquire(mem, 0L) != 0;
    }

    /** {@return true when the assignment is published (not dismissed)} */
    boolean isAssigned() {
        return (int) ASSIGNMENT.getAcquire(mem, 0L) == ASSIGNED;
    }

    void publishReady() {
        READY_WORD.setRelease(mem, 0L, READY);
    }

    boolean isReady() {
        return (long) READY_WORD.getAcquire(mem, 0L) == READY;
    }
}
