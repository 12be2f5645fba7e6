package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A name that another process made first (a stranger who saw or guessed it) makes each maker of named shared memory
 * take its next name, and leave the stranger's file as it was.
 */
class FreshNameTest {
    private static final byte[] STRANGERS = {42};

    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    /** A name of this process's, made first by somebody else. */
    private static Path taken(String suffix) throws IOException {
        return Files.write(SharedSegment.directory().resolve(SharedSegment.newName(suffix)), STRANGERS);
    }

    /** The taken name, then a free one. */
    private static Supplier<String> names(Path taken, String free) {
        Iterator<String> names = List.of(taken.getFileName().toString(), free).iterator();
        return names::next;
    }

    @Test
    void aSegmentTakesTheNextName() throws IOException {
        Path taken = taken("mem0");
        String free = SharedSegment.newName("mem0");
        try (SharedSegment made = SharedSegment.createFresh(names(taken, free), 4096, true);
             SharedSegment opened = SharedSegment.open(free)) {
            assertEquals(free, made.name());
            assertEquals(4096, opened.size());
            assertArrayEquals(STRANGERS, Files.readAllBytes(taken), "the stranger's file is left as it was");
        } finally {
            Files.delete(taken);
        }
    }

    @Test
    void aControlBlockTakesTheNextNameAndItsChildrenOpenIt() throws IOException {
        Path taken = taken(null);
        String free = SharedSegment.newName(null);
        try (ControlBlock made = ControlBlockSegment.create(names(taken, free), 2, TestSupport.SLOT);
             ControlBlock opened = ControlBlock.open(free, TestSupport.SLOT, false)) {
            assertEquals(free, made.name());
            assertEquals(2, opened.processCount());
            assertArrayEquals(STRANGERS, Files.readAllBytes(taken), "the stranger's file is left as it was");
        } finally {
            Files.delete(taken);
        }
    }

    @Test
    void anExportHolderTableTakesTheNextName() throws IOException {
        Path taken = taken("holders");
        String free = SharedSegment.newName("holders");
        try (ExportHolders made = ExportHolders.create(4, names(taken, free));
             ExportHolders opened = ExportHolders.open(free)) {
            assertEquals(free, made.name());
            assertEquals(4, opened.capacity());
            assertArrayEquals(STRANGERS, Files.readAllBytes(taken), "the stranger's file is left as it was");
        } finally {
            Files.delete(taken);
        }
    }

    @Test
    void onlyTakenNamesEndTheAttemptInOneLine() throws IOException {
        Path taken = taken(null);
        try {
            CoordinationException e = assertThrows(CoordinationException.class,
                    () -> SharedSegment.createFresh(() -> taken.getFileName().toString(), 64, true));
            assertEquals(FreshName.TRIES + " names in a row were taken, the last " + taken
                    + ": another process makes the names this one picks", e.getMessage());
            assertArrayEquals(STRANGERS, Files.readAllBytes(taken));
        } finally {
            Files.delete(taken);
        }
    }
}
