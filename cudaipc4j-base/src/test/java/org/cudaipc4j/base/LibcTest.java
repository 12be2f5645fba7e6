package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibcTest {
    @Test
    void errnoComesBackWithTheFailedCall() {
        Libc.Result r = Libc.open("/nonexistent-" + UUID.randomUUID(), Libc.O_RDWR, 0);
        assertEquals(-1, r.value());
        assertEquals(Libc.ENOENT, r.errno());
        assertEquals("No such file or directory", Libc.strerror(r.errno()));
    }

    @Test
    void closingADescriptorTwiceFailsWithEbadf(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "x");
        Libc.Result opened = Libc.open(file.toString(), Libc.O_RDWR | Libc.O_CLOEXEC, 0);
        assertTrue(opened.value() >= 0, "open: " + Libc.strerror(opened.errno()));
        assertTrue(Libc.fcntlGetFd(opened.value()).value() >= 0, "open descriptor");
        assertEquals(new Libc.Result(0, 0), Libc.close(opened.value()));
        assertEquals(new Libc.Result(-1, Libc.EBADF), Libc.close(opened.value()));
    }

    @Test
    void dup2CopiesADescriptorOntoAChosenNumber(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "");
        Path other = Files.writeString(dir.resolve("other"), "");
        int fd = Libc.open(file.toString(), Libc.O_WRONLY | Libc.O_CLOEXEC, 0).value();
        int probe = Libc.open(other.toString(), Libc.O_WRONLY | Libc.O_CLOEXEC, 0).value();
        try {
            assertTrue(fd >= 0 && probe >= 0);
            assertEquals(probe, Libc.dup2(fd, probe));
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
    void theRealUserIdIsThisProcesssOwner() throws Exception {
        Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        assertEquals(((Integer) uid).longValue(), Libc.getuid());
    }
}
