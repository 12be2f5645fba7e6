package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedSegmentTest {
    private static final long SELF = ProcessHandle.current().pid();
    /** Our uid. */
    static final long UID = Libc.getuid();
    /** A uid that is not ours: nobody's (65534) for root, root's for everyone else. */
    static final long OTHER_UID = UID == 0 ? 65534 : 0;

    /**
     * Skips a test that gives a file to another user: that needs root (chown). Each such test has a twin that
     * checks the same refusal with the owner injected instead, for any user.
     */
    static void assumeRoot() {
        assumeTrue(UID == 0, "giving a file to another user (chown) needs root, and this runs as uid " + UID
                + ": the refusal is checked with an injected owner by this test's twin");
    }

    @AfterEach
    void nothingLeft() {
        System.clearProperty(CoordSettings.SHM_DIR.name());
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
    void openRefusesAFileItsExpectedOwnerDoesNotOwn() {
        try (SharedSegment created = SharedSegment.create(64)) {
            SharedSegmentException e = assertThrows(SharedSegmentException.class,
                    () -> SharedSegment.open(created.name(), OTHER_UID));
            assertEquals("shared segment " + created.path() + " is owned by uid " + UID + ", not by us (uid "
                    + OTHER_UID + "); refusing to use it", e.getMessage());
            // The same file with the owner it has opens: the refusal above is the owner's doing.
            try (SharedSegment opened = SharedSegment.open(created.name(), UID)) {
                assertEquals(64, opened.size());
            }
        }
    }

    @Test
    void openRefusesAnotherUsersFile() throws IOException {
        assumeRoot();
        Path file = Path.of("/dev/shm", "cudaipc4j-" + SELF + "-foreignowner");
        Files.write(file, new byte[256]);
        try {
            Files.setAttribute(file, "unix:uid", (int) OTHER_UID);
            SharedSegmentException e = assertThrows(SharedSegmentException.class,
                    () -> SharedSegment.open(file.getFileName().toString()));
            assertEquals("shared segment " + file + " is owned by uid " + OTHER_UID + ", not by us (uid " + UID
                    + "); refusing to use it", e.getMessage());
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
    void reservationRefusedByTheKernelIsReportedAndCleanedUp(@TempDir Path dir) {
        // A child JVM under a 1 MiB file size limit (RLIMIT_FSIZE, which any user may lower; the JVM ignores the
        // SIGXFSZ that comes with the refusal): the kernel itself refuses a 4 MiB reservation, as a full tmpfs does.
        JavaProcess.Result refused = createUnderFileSizeLimit(dir, 4L << 20);
        assertEquals(0, refused.exitCode(), refused.describe());
        assertTrue(refused.stdout().startsWith("REFUSED cannot reserve 4194304 bytes for shared segment "
                + dir + "/cudaipc4j-" + refused.pid() + "-"), refused.describe());
        assertTrue(refused.stdout().contains(": File too large ("), refused.describe());
        assertEquals(List.of(), entries(dir), "a failed create must not leave its file");

        // Below the limit the same child creates its segment: the size was what the kernel refused.
        JavaProcess.Result fits = createUnderFileSizeLimit(dir, 64 << 10);
        assertEquals("CREATED 65536\n", fits.stdout(), fits.describe());
        assertEquals(List.of(), entries(dir), "the creator's close removes its file");
    }

    /** Runs {@link CreateSegment} with {@code size} in a child JVM whose files may not grow past 1 MiB. */
    private static JavaProcess.Result createUnderFileSizeLimit(Path dir, long size) {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -f 1024 && exec \"$@\"", "bash"));
        command.addAll(JavaProcess.command(CreateSegment.class,
                List.of("-D" + CoordSettings.SHM_DIR.name() + "=" + dir), Long.toString(size)));
        return JavaProcess.runCommand(Duration.ofSeconds(60), command);
    }

    /** Child JVM: creates a segment of the size given, the kernel's answer the only check; prints the outcome. */
    static final class CreateSegment {
        public static void main(String[] args) {
            try (SharedSegment s = SharedSegment.create(null, Long.parseLong(args[0]), false)) {
                System.out.println("CREATED " + s.size());
            } catch (SharedSegmentException e) {
                System.out.println("REFUSED " + e.getMessage());
            }
        }
    }

    private static List<String> entries(Path dir) {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void reservationFailureOnAFullTmpfsIsReportedAndCleanedUp(@TempDir Path dir) throws Exception {
        assumeTrue(UID == 0, "mounting a 1 MiB tmpfs needs root (CAP_SYS_ADMIN), and this runs as uid " + UID
                + ": the kernel's refusal is tested under a file size limit by"
                + " reservationRefusedByTheKernelIsReportedAndCleanedUp");
        // A 1 MiB tmpfs: the kernel itself must refuse a 4 MiB reservation, and the check first sees the room.
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes());
        assumeTrue(mount.waitFor() == 0, "root may not mount a tmpfs here (a container without CAP_SYS_ADMIN?): "
                + out.strip());
        try {
            System.setProperty(CoordSettings.SHM_DIR.name(), dir.toString());
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
            System.clearProperty(CoordSettings.SHM_DIR.name());
            new ProcessBuilder("umount", dir.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void missingDirectoryIsAClearError(@TempDir Path dir) {
        System.setProperty(CoordSettings.SHM_DIR.name(), dir.resolve("absent").toString());
        SharedSegmentException e = assertThrows(SharedSegmentException.class, () -> SharedSegment.create(64));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void reapStaleRemovesOnlyOurFilesOfDeadCreators(@TempDir Path dir) throws Exception {
        System.setProperty(CoordSettings.SHM_DIR.name(), dir.toString());
        long dead = deadPid();
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            Path stale = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000aa"), new byte[16]);
            Path staleSuffix = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000ab-mem0"), new byte[16]);
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
            for (Path kept : new Path[] {mine, otherName, noPid, subdir, live}) {
                assertTrue(Files.exists(kept), kept + " must be kept");
            }
            assertTrue(Files.exists(link, LinkOption.NOFOLLOW_LINKS), "links must be kept");
            assertEquals(0, SharedSegment.reapStale());
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
    }

    @Test
    void reapStaleKeepsTheFilesOfOthersThanTheOwnerItReapsFor(@TempDir Path dir) throws Exception {
        System.setProperty(CoordSettings.SHM_DIR.name(), dir.toString());
        Path stale = Files.write(dir.resolve("cudaipc4j-" + deadPid() + "-00000000000000bb"), new byte[16]);
        assertEquals(0, SharedSegment.reapStale(OTHER_UID));
        assertTrue(Files.exists(stale), "a file of uid " + UID + " must be kept when reaping for uid " + OTHER_UID);
        // For its owner the same file is stale: it was kept for its owner alone.
        assertEquals(1, SharedSegment.reapStale(UID));
        assertFalse(Files.exists(stale));
    }

    @Test
    void reapStaleKeepsAnotherUsersFile(@TempDir Path dir) throws Exception {
        assumeRoot();
        System.setProperty(CoordSettings.SHM_DIR.name(), dir.toString());
        long dead = deadPid();
        Path foreign = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000bb"), new byte[16]);
        Files.setAttribute(foreign, "unix:uid", (int) OTHER_UID);
        Path ours = Files.write(dir.resolve("cudaipc4j-" + dead + "-00000000000000cc"), new byte[16]);
        assertEquals(1, SharedSegment.reapStale());
        assertTrue(Files.exists(foreign), "uid " + OTHER_UID + "'s file must be kept");
        assertFalse(Files.exists(ours));
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
