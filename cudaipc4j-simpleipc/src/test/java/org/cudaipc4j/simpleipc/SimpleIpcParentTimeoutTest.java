package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemoryLayout;
import java.util.List;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.Supervisor;
import org.junit.jupiter.api.Test;

/** Whether a failed run counts as timed out: what its last line then names. */
class SimpleIpcParentTimeoutTest {
    private static final MemoryLayout NO_DATA = MemoryLayout.structLayout();

    private static Supervisor.Outcome failed(String... reasons) {
        List<Supervisor.Failure> failures = new java.util.ArrayList<>();
        for (int i = 0; i < reasons.length; i++) {
            failures.add(new Supervisor.Failure(i, reasons[i]));
        }
        return new Supervisor.Outcome(failures, List.of());
    }

    @Test
    void theParentsTimeoutWaitingForAnyProcessCounts() {
        try (ControlBlock block = ControlBlock.create(2, NO_DATA)) {
            assertTrue(SimpleIpcParent.timedOut(failed("exit code 1",
                    "timed out after 1 ms (--timeout) waiting for it to finish"), block));
        }
    }

    @Test
    void aChildThatTimedOutItselfCountsThroughTheGroupsFirstAbort() {
        try (ControlBlock block = ControlBlock.create(2, NO_DATA)) {
            block.abort(0, "timed out after 1 ms (--timeout) waiting for the parent to publish its assignment");
            assertTrue(SimpleIpcParent.timedOut(failed("exit code 1", "exit code 1"), block));
        }
    }

    @Test
    void anotherFailureFirstIsNoTimeout() {
        try (ControlBlock block = ControlBlock.create(2, NO_DATA)) {
            assertFalse(SimpleIpcParent.timedOut(failed("exit code 1"), block), "no abort");
            block.abort(1, "verification failed: byte 0 is 3, expected 4");
            block.abort(0, "timed out after 1 ms (--timeout) waiting for the barrier"); // not the first: ignored
            assertFalse(SimpleIpcParent.timedOut(failed("exit code 1", "exit code 1"), block));
        }
    }
}
