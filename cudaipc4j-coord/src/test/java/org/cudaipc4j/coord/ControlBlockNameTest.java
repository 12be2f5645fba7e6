package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The block's name goes once everyone has opened the block: the group goes on, and a killed creator leaves no file. */
class ControlBlockNameTest {
    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    @Test
    void theNameGoesAndTheOpenedBlockStaysShared() {
        try (ControlBlock created = ControlBlock.create(2, TestSupport.SLOT);
             ControlBlock joined = ControlBlock.open(created.name(), TestSupport.SLOT, false)) {
            assertTrue(Files.exists(created.segment().path()));
            created.removeName();
            created.removeName(); // idempotent
            assertFalse(Files.exists(created.segment().path()), "the file is gone");
            joined.setPid(1, 4242);
            assertEquals(4242, created.pid(1), "the mapping outlives the name");
            assertThrows(ControlBlockException.class, () -> ControlBlock.open(created.name(), TestSupport.SLOT, false),
                    "nobody opens it by name any more");
            assertThrows(IllegalStateException.class, joined::removeName, "an opener cannot remove the name");
        }
    }
}
