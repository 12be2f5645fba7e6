package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.interop.TorchHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening torch's expandable segments ({@code 'e'}) without a GPU: the kernel's refusals of {@code pidfd_open} and
 * {@code pidfd_getfd}, injected, each become one line that says why and what to change; the share's slot goes back
 * and every descriptor taken before the refusal is closed. The block key ignores the handle's padding.
 */
class ExpandableRefusalsTest {
    private static final int PID = 4242;
    private static final long CHUNK = 2L << 20;

    @TempDir
    Path dir;

    /** A version 2 {@code 'e'} handle of {@code pid} with the given fds, padding {@code pad}. */
    static byte[] handle(int pid, int pad, int... fds) {
        ByteBuffer b = ByteBuffer.allocate(2 + 24 + 4 * fds.length).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) 2).put((byte) 'e').putInt(pid).putInt(pad).putLong(CHUNK).putLong(fds.length);
        for (int fd : fds) {
            b.putInt(fd);
        }
        return b.array();
    }

    /** Fake system calls: pidfd 900, copies numbered 1000 on, {@code errno} at call number {@code failAt}. */
    static final class Fake implements ProducerFds.Syscalls {
        final int errno;
        final int failAt;
        int calls;
        int next = 1000;
        final List<Integer> opened = new ArrayList<>();
        final List<Integer> closed = new ArrayList<>();

        Fake(int errno, int failAt) {
            this.errno = errno;
            this.failAt = failAt;
        }

        @Override
        public Libc.Result pidfdOpen(long pid) {
            return call(900);
        }

        @Override
        public Libc.Result pidfdGetfd(int pidfd, int fd) {
            assertEquals(900, pidfd);
            return call(next++);
        }

        private Libc.Result call(int fd) {
            if (calls++ == failAt) {
                return new Libc.Result(-1, errno);
            }
            opened.add(fd);
            return new Libc.Result(fd, 0);
        }

        @Override
        public void close(int fd) {
            closed.add(fd);
        }
    }

    /** Opens a share of chunks 45, 46, 47 with {@code fake}; returns the one line refused, checks nothing leaked. */
    private String refused(Fake fake) {
        String counter = CounterFiles.create(dir, 1);
        TorchShare share = new TorchShare(0, TorchHandle.parse(handle(PID, 0, 45, 46, 47)), 4096, CHUNK - 1024,
                counter, 0, null, false, null);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            TorchReader reader = new TorchReader(null, leases, fake);
            TorchInteropException e = assertThrows(TorchInteropException.class, () -> reader.open(share, null));
            assertEquals(0, reader.mappedBlocks());
            assertEquals(0, leases.openStorages());
            assertEquals(0, CounterFiles.slot(dir, counter, 0), "a share that cannot be opened is given back");
            assertEquals(fake.opened.stream().sorted().toList(), fake.closed.stream().sorted().toList(),
                    "every descriptor taken before the refusal is closed");
            String line = e.getMessage();
            assertFalse(line.contains("\n"), line);
            assertTrue(line.startsWith("cannot open torch's expandable segment shared by pid " + PID + ": "), line);
            return line;
        }
    }

    @Test
    void notPermittedSaysPtraceAndWhatToChange() {
        String line = refused(new Fake(Libc.EPERM, 1));
        assertTrue(line.contains("pidfd_getfd of its fd 45 (chunk 0 of 3) failed: not permitted: taking the"
                + " producer's file descriptors needs ptrace access to it"), line);
        assertTrue(line.contains("Yama ptrace_scope is " + org.cudaipc4j.coord.fd.PidFd.ptraceScope()), line);
        assertTrue(line.contains("run the reader as the producer's user"), line);
        assertTrue(line.contains("PR_SET_PTRACER"), line);
        assertTrue(line.contains("kernel.yama.ptrace_scope=0"), line);
        assertTrue(line.contains("CAP_SYS_PTRACE"), line);
        assertTrue(line.contains("; or receive the fds over the descriptor socket instead, which needs no ptrace rights"
                + " (a torch producer sends them with cudaipc4j.sharing.send_share); "), "the socket way: " + line);
        assertTrue(line.endsWith("or share from a producer with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False"),
                line);
    }

    @Test
    void noSuchProcessSaysGoneOrAnotherPidNamespace() {
        String line = refused(new Fake(Libc.ESRCH, 0));
        assertEquals("cannot open torch's expandable segment shared by pid 4242: pidfd_open(4242) failed: no process"
                + " 4242 here: the producer has exited, or it runs in another PID namespace (a container, unshare),"
                + " where its pid means nothing here; a reader of expandable segments must share the producer's PID"
                + " namespace (e.g. docker --pid=host or --pid=container:<producer>); or share from a producer with"
                + " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False", line);
        // a producer that exits between pidfd_open and pidfd_getfd is told the same way
        String later = refused(new Fake(Libc.ESRCH, 2));
        assertTrue(later.contains("pidfd_getfd of its fd 46 (chunk 1 of 3) failed: no process 4242 here"), later);
    }

    @Test
    void aClosedDescriptorSaysTheProducerNoLongerHoldsTheChunk() {
        Fake fake = new Fake(Libc.EBADF, 3);
        String line = refused(fake);
        assertEquals("cannot open torch's expandable segment shared by pid 4242: pidfd_getfd of its fd 47 (chunk 2"
                + " of 3) failed: process 4242 has no open file descriptor 47: the producer no longer holds that"
                + " chunk (it freed the block, or the share is stale): share the tensor again and open it while the"
                + " producer keeps it", line);
        assertEquals(List.of(900, 1000, 1001), fake.opened);
        assertEquals(List.of(1000, 1001, 900), fake.closed, "the copies, then the pidfd");
    }

    @Test
    void anOldKernelSaysLinux56() {
        String line = refused(new Fake(Libc.ENOSYS, 0));
        assertTrue(line.contains("pidfd_open(4242) failed: this kernel has no pidfd_open (Linux 5.6 or newer is"
                + " needed"), line);
        String getfd = refused(new Fake(Libc.ENOSYS, 1));
        assertTrue(getfd.contains("this kernel has no pidfd_getfd (Linux 5.6 or newer"), getfd);
    }

    @Test
    void anotherErrnoIsNamed() {
        String line = refused(new Fake(24, 1)); // EMFILE
        assertTrue(line.contains("(errno 24)"), line);
    }

    @Test
    void theKernelItselfRefusesAProcessThatDoesNotExist() {
        // above the kernel's largest pid_max (2^22): never a process
        String counter = CounterFiles.create(dir, 1);
        TorchShare share = new TorchShare(0, TorchHandle.parse(handle(4194305, 0, 45)), 4096, 0, counter, 0, null,
                false, null);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            TorchInteropException e = assertThrows(TorchInteropException.class,
                    () -> new TorchReader(null, leases).open(share, null));
            assertTrue(e.getMessage().contains("pidfd_open(4194305) failed: no process 4194305 here")
                    || e.getMessage().contains("this kernel has no pidfd_open"), e.getMessage());
            assertEquals(0, CounterFiles.slot(dir, counter, 0));
        }
    }

    @Test
    void theBlockKeyIgnoresPaddingAndTellsChunkListsApart() {
        int self = (int) ProcessHandle.current().pid();
        String a = TorchReader.blockKey(TorchHandle.parse(handle(self, 0, 45, 46)));
        assertEquals(a, TorchReader.blockKey(TorchHandle.parse(handle(self, 0x5a5a5a5a, 45, 46))),
                "uninitialised padding is no part of the key");
        assertNotEquals(a, TorchReader.blockKey(TorchHandle.parse(handle(self, 0, 46, 47))));
        assertNotEquals(a, TorchReader.blockKey(TorchHandle.parse(handle(self, 0, 45))));
        assertTrue(a.endsWith("@" + TorchStorageKey.processStartTime(self)), "the producer's start time: " + a);
    }
}
