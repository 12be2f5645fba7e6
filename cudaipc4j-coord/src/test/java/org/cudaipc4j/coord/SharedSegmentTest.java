package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedSegmentTest {
    private static final long SELF = ProcessHandle.current().pid();

    @AfterEach
    void nothingLeft() {
        System.clearProperty(SharedSegment.DIR_PROPERTY);
        assertNoSegmentsOfThisJvm();
    }

    @Test
    void createdSegmentIsPrivateSharedAndUnlinkedByItsCreator() throws IOException {
        SharedSegment created = SharedSegment.create(8192);
        Path file = Path.of("/dev/shm", created.name());
        try {
            assertTrue(created.name().matches("cudaipc4j-" + SELF + "-[0-9a-f]{16}"), created.name());
            assertEquals(file, created.path());
            assertTrue(created.isCreator());
            assertEquals(8192, created.size());
            assertEquals(8192, Files.size(file));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file,
                    LinkOption.NOFOLLOW_LINKS)));
            created.memory().set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9abcL);

            try (SharedSegment opened = SharedSegment.open(created.name())) {
                assertFalse(opened.isCreator());
                assertEquals(8192, opened.size());
                assertEquals(0x1234_5678_9abcL, opened.memory().get(ValueLayout.JAVA_LONG, 4096));
                opened.memory().set(ValueLayout.JAVA_INT, 0, 77);
                assertEquals(77, created.memory().get(ValueLayout.JAVA_INT, 0));
            }
            assertTrue(Files.exists(file), "an opener's close must not unlink");
        } finally {
            created.close();
        }
        assertFalse(Files.exists(file));
        created.close();
        assertThrows(IllegalStateException.class, () -> created.memory().get(ValueLayout.JAVA_INT, 0));
    }

    @Test
    void suffixIsAppendedAndValidated() {
        try (SharedSegment s = SharedSegment.create("mem3", 100)) {
            assertTrue(s.name().matches("cudaipc4j-" + SELF + "-[0-9a-f]{16}-mem3"), s.name());
            assertEquals(100, s.size());
        }
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.create("a/b", 100));
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.create("..", 100));
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.create("", 100));
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.create(0));
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.create(-5));
    }

    @Test
    void namesAreRandomPerSegment() {
        try (SharedSegment a = SharedSegment.create(64); SharedSegment b = SharedSegment.create(64)) {
            assertFalse(a.name().equals(b.name()));
        }
    }

    @Test
    void openRejectsUnsafeOrForeignNames() {
        for (String bad : new String[] {"../etc/passwd", "cudaipc4j-../../etc/passwd", "cudaipc4j-1/x", "sem.foo",
                "cudaipc4j-", "cudaipc4j-1-..", "cudaipc4j-1 x", "", "/dev/shm/cudaipc4j-1-a"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SharedSegment.open(bad), bad);
            assertTrue(e.getMessage().contains("name"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.open(null));
    }

    @Test
    void openMissingSegmentSaysSo() {
        SharedSegmentException e = assertThrows(SharedSegmentException.class,
                () -> SharedSegment.open("cudaipc4j-" + SELF + "-0000000000000000"));
        assertTrue(e.getMessage().endsWith("does not exist"), e.getMessage());
    }

    @Test
    void openRefusesAnotherUsersFile() throws IOException {
        Path file = Path.of("/dev/shm", "cudaipc4j-" + SELF + "-foreignowner");
        Files.write(file, new byte[256]);
        try {
            Files.setAttribute(file, "unix:uid", 65534);
            SharedSegmentException e = assertThrows(SharedSegmentException.class,
                    () -> SharedSegment.open(file.getFileName().toString()));
            assertTrue(e.getMessage().contains("owned by uid 65534, not by us (uid 0)"), e.getMessage());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void openRefusesLinksAndEmptyFiles() throws IOException {
        Path link = Path.of("/dev/shm", "cudaipc4j-" + SELF + "-link");
        Path empty = Path.of("/dev/shm", "cudaipc4j-" + SELF + "-empty");
        try (SharedSegment target = SharedSegment.create(64)) {
            Files.createSymbolicLink(link, target.path());
            Files.createFile(empty);
            SharedSegmentException e = assertThrows(SharedSegmentException.class,
                    () -> SharedSegment.open(link.getFileName().toString()));
            assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
            e = assertThrows(SharedSegmentException.class, () -> SharedSegment.open(empty.getFileName().toString()));
            assertTrue(e.getMessage().contains("is empty"), e.getMessage());
        } finally {
            Files.deleteIfExists(link);
            Files.deleteIfExists(empty);
        }
    }

    @Test
    void fullShmIsAClearErrorNotASigbus() throws IOException {
        long total = Files.getFileStore(Path.of("/dev/shm")).getTotalSpace();
        long tooBig = total + (1L << 30);
        SharedSegmentException e = assertThrows(SharedSegmentException.class, () -> SharedSegment.create(tooBig));
        assertTrue(e.getMessage().contains("bytes free in /dev/shm"), e.getMessage());
        assertTrue(e.getMessage().contains(Long.toString(tooBig)), e.getMessage());
    }

    @Test
    void reservationFailureFromTheKernelIsReportedAndCleanedUp(@TempDir Path dir) throws Exception {
        // A 1 MiB tmpfs (we run as root); the kernel itself must refuse a 4 MiB reservation.
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes());
        assumeTrue(mount.waitFor() == 0, "cannot mount a small tmpfs here: " + out);
        try {
            System.setProperty(SharedSegment.DIR_PROPERTY, dir.toString());
            SharedSegmentException e = assertThrows(SharedSegmentException.class,
                    () -> SharedSegment.create(null, 4L << 20, false));
            assertTrue(e.getMessage().startsWith("cannot reserve 4194304 bytes for shared segment " + dir),
                    e.getMessage());
            assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
            try (var files = Files.list(dir)) {
                assertEquals(0, files.count(), "a failed create must not leave its file");
            }
            // With the check first, the message says how much room there is before touching the kernel.
            e = assertThrows(SharedSegmentException.class, () -> SharedSegment.create(4L << 20));
            assertTrue(e.getMessage().contains("bytes free in " + dir), e.getMessage());
            try (SharedSegment fits = SharedSegment.create(512 << 10)) {
                assertEquals(512 << 10, fits.size());
            }
        } finally {
            System.clearProperty(SharedSegment.DIR_PROPERTY);
            new ProcessBuilder("umount", dir.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void missingDirectoryIsAClearError(@TempDir Path dir) {
        System.setProperty(SharedSegment.DIR_PROPERTY, dir.resolve("absent").toString());
        SharedSegmentException e = assertThrows(SharedSegmentException.class, () -> SharedSegment.create(64));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void reapStaleRemovesOnlyOurFilesOfDeadCreators(@TempDir Path dir) throws Exception {
        System.setProperty(SharedSegment.DIR_PROPERTY, dir.toString());
        long dead = deadPid();
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            Path stale = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000aa"), new byte[16]);
            Path staleSuffix = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000ab-mem0"), new byte[16]);
            Path foreign = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000bb"), new byte[16]);
            Files.setAttribute(foreign, "unix:uid", 65534);
            Path mine = Files.write(dir.resolve("cudaipc4j-" + SELF + "-00000000000000cc"), new byte[16]);
            Path otherName = Files.write(dir.resolve("other-" + dead + "-00000000000000dd"), new byte[16]);
            Path noPid = Files.write(dir.resolve("cudaipc4j-x" + dead + "-ee"), new byte[16]);
            Path link = Files.createSymbolicLink(dir.resolve("cudaipc4j-" + dead + "-link"), otherName);
            Path subdir = Files.createDirectory(dir.resolve("cudaipc4j-" + dead + "-dir"));
            Path live = Files.write(dir.resolve("cudaipc4j-" + sleeper.pid() + "-00000000000000ff"), new byte[16]);
            // Same live pid, but the file predates that process by an hour: the pid was reused.
            Path reused = Files.write(dir.resolve("cudaipc4j-" + sleeper.pid() + "-0000000000000011"), new byte[16]);
            Files.setLastModifiedTime(reused, FileTime.from(Instant.now().minus(1, ChronoUnit.HOURS)));

            assertEquals(3, SharedSegment.reapStale());

            assertFalse(Files.exists(stale));
            assertFalse(Files.exists(staleSuffix));
            assertFalse(Files.exists(reused));
            for (Path kept : new Path[] {foreign, mine, otherName, noPid, subdir, live}) {
                assertTrue(Files.exists(kept), kept + " must be kept");
            }
            assertTrue(Files.exists(link, LinkOption.NOFOLLOW_LINKS), "links must be kept");
            assertEquals(0, SharedSegment.reapStale());
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
    }

    @Test
    void reapStaleOnTheRealShmDirIsSafeToCall() {
        try (SharedSegment mine = SharedSegment.create(64)) {
            SharedSegment.reapStale();
            assertTrue(Files.exists(mine.path()), "a live creator's segment must survive reaping");
        }
    }

    /**
     * A pid no process has: above the largest pid_max Linux allows (2^22). The pid of a process that exited could
     * be given to a new one before the test looks.
     */
    static long deadPid() {
        long pid = (1L << 22) + 1;
        if (Pids.isAlive(pid)) {
            throw new IllegalStateException("pid " + pid + " is alive");
        }
        return pid;
    }
}
