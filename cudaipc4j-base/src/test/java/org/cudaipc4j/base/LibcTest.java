package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibcTest {
    @Test
    void errnoComesBackWithTheFailedCall() {
        Libc.Result r = LibcFiles.open("/nonexistent-" + UUID.randomUUID(), LibcFiles.O_RDWR, 0);
        assertEquals(-1, r.value());
        assertEquals(Libc.ENOENT, r.errno());
        assertEquals("No such file or directory", Libc.strerror(r.errno()));
    }

    @Test
    void closingADescriptorTwiceFailsWithEbadf(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "x");
        Libc.Result opened = LibcFiles.open(file.toString(), LibcFiles.O_RDWR | LibcFiles.O_CLOEXEC, 0);
        assertTrue(opened.value() >= 0, "open: " + Libc.strerror(opened.errno()));
        assertTrue(LibcFiles.fcntlGetFd(opened.value()).value() >= 0, "open descriptor");
        assertEquals(new Libc.Result(0, 0), Libc.close(opened.value()));
        assertEquals(new Libc.Result(-1, Libc.EBADF), Libc.close(opened.value()));
    }

    @Test
    void dup2CopiesADescriptorOntoAChosenNumber(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "");
        Path other = Files.writeString(dir.resolve("other"), "");
        int fd = LibcFiles.open(file.toString(), LibcFiles.O_WRONLY | LibcFiles.O_CLOEXEC, 0).value();
        int probe = LibcFiles.open(other.toString(), LibcFiles.O_WRONLY | LibcFiles.O_CLOEXEC, 0).value();
        try {
            assertTrue(fd >= 0 && probe >= 0);
            assertEquals(probe, LibcFiles.dup2(fd, probe));
            // the number now names fd's file, not the one it was opened on
            assertEquals(file.toRealPath(), Files.readSymbolicLink(Path.of("/proc/self/fd/" + probe)));
        } finally {
            Libc.close(probe);
            Libc.close(fd);
        }
    }

    @Test
    void theCEnvironmentIsSetOnlyWhereAsked() {
        String name = "CUDAIPC4J_BASE_TEST_" + UUID.randomUUID().toString().replace('-', '_');
        assertNull(Libc.getenv(name));
        assertEquals(0, Libc.setenv(name, "1", false));
        assertEquals("1", Libc.getenv(name));
        assertEquals(0, Libc.setenv(name, "2", false));
        assertEquals("1", Libc.getenv(name), "a value already set stays");
        assertEquals(0, Libc.setenv(name, "2", true));
        assertEquals("2", Libc.getenv(name));
    }

    @Test
    void aFutexWaitSleepsOnlyWhileTheWordHoldsTheExpectedValue() {
        assumeTrue(LibcFutex.hasFutex());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(JAVA_INT);
            MemorySegment timespec = arena.allocate(16, 8);
            word.set(JAVA_INT, 0, 7);
            long start = System.nanoTime();
            LibcFutex.futexWait(word, 8, 10_000_000_000L, timespec);
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "the word differs: no sleep");
            start = System.nanoTime();
            LibcFutex.futexWait(word, 7, 100_000_000L, timespec);
            assertTrue(System.nanoTime() - start >= 50_000_000L, "the word holds 7: a sleep to the timeout");
            LibcFutex.futexWakeAll(word); // no one sleeps: returns at once
        }
    }

    @Test
    void theRealUserIdIsThisProcesssOwner() throws Exception {
        Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        assertEquals(((Integer) uid).longValue(), Libc.getuid());
    }
}
