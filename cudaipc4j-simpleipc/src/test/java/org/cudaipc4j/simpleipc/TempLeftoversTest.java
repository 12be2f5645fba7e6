package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.cudaipc4j.base.Libc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an ended process left in the temporary folder goes; a running one's, other names and links stay. */
class TempLeftoversTest {
    private static final Pattern NAME = Pattern.compile("left-([0-9]{1,10})-[0-9]+(\\.json)?");

    @Test
    void theEntriesOfEndedProcessesGoAndTheRestStays(@TempDir Path dir) throws IOException {
        long ended = (1L << 22) + 1; // above the kernel's largest pid: no process has it
        long running = ProcessHandle.current().pid();
        Path endedFile = Files.writeString(dir.resolve("left-" + ended + "-123.json"), "{}");
        Path endedFolder = Files.createDirectory(dir.resolve("left-" + ended + "-456"));
        Files.writeString(endedFolder.resolve("child-0.txt"), "phase 1");
        Path runningFile = Files.writeString(dir.resolve("left-" + running + "-789.json"), "{}");
        Path otherName = Files.writeString(dir.resolve("kept-" + ended + "-1.json"), "{}");
        Path link = Files.createSymbolicLink(dir.resolve("left-" + ended + "-999"), otherName);

        assertEquals(2, TempLeftovers.sweep(dir, NAME));
        assertFalse(Files.exists(endedFile));
        assertFalse(Files.exists(endedFolder));
        assertTrue(Files.exists(runningFile), "this process's own");
        assertTrue(Files.exists(otherName), "another name");
        assertTrue(Files.isSymbolicLink(link), "a link is never the tool's");
    }

    @Test
    void anotherUsersEntriesOfEndedProcessesStay(@TempDir Path dir) throws IOException {
        long uid = Libc.getuid();
        assumeTrue(uid == 0, "giving a file to another user (chown) needs root, and this runs as uid " + uid);
        long other = 65534; // nobody
        long ended = (1L << 22) + 1;
        Path foreignFile = Files.writeString(dir.resolve("left-" + ended + "-1.json"), "{}");
        Path foreignFolder = Files.createDirectory(dir.resolve("left-" + ended + "-2"));
        Path inside = Files.writeString(foreignFolder.resolve("child-0.txt"), "phase 1");
        for (Path p : new Path[] {foreignFile, foreignFolder, inside}) {
            Files.setAttribute(p, "unix:uid", (int) other);
        }
        Path ours = Files.writeString(dir.resolve("left-" + ended + "-3.json"), "{}");

        assertEquals(1, TempLeftovers.sweep(dir, NAME));
        assertTrue(Files.exists(foreignFile), "uid " + other + "'s file must stay");
        assertTrue(Files.exists(inside), "uid " + other + "'s folder must stay, with its files");
        assertFalse(Files.exists(ours), "ours, of the same ended process, goes: the owner decided");
    }

    @Test
    void aMissingFolderIsNothingToSweep(@TempDir Path dir) {
        assertEquals(0, TempLeftovers.sweep(dir.resolve("absent"), NAME));
    }
}
