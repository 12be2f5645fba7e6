package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.coord.SharedSegment;
import org.junit.jupiter.api.Test;

/** The phase-log folder's name, when somebody made it first, is left to them: the folder takes another. */
class PhaseFilesTest {
    @Test
    void aTakenFolderNameMakesItPickAnotherAndLeaveTheStrangersAlone() throws IOException {
        Path taken = Files.createDirectory(TempLeftovers.directory().resolve(SharedSegment.newName(null)
                + PhaseFiles.SUFFIX));
        Path planted = Files.writeString(taken.resolve("child-0.txt"), "a stranger's");
        String free = SharedSegment.newName(null) + PhaseFiles.SUFFIX;
        Iterator<String> names = List.of(taken.getFileName().toString(), free).iterator();
        Path folder = TempLeftovers.directory().resolve(free);
        try (PhaseFiles phases = new PhaseFiles(true, names::next, 1)) {
            assertEquals(folder.resolve("child-0.txt"), phases.file(0));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
            assertEquals(List.of(Map.of()), phases.read(), "nothing logged in the folder made");
        } finally {
            assertEquals("a stranger's", Files.readString(planted), "the stranger's folder is left as it was");
            Files.delete(planted);
            Files.delete(taken);
        }
        assertFalse(Files.exists(folder), "closing removes the folder");
    }
}
