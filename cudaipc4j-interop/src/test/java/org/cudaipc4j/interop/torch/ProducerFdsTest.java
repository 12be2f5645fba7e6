package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcProcesses;
import org.junit.jupiter.api.Test;

/** A producer's pidfd is opened once while blocks of it are mapped, and given up when its process has exited. */
class ProducerFdsTest {
    /** Fake calls: pidfds numbered 900 on; the processes of {@code exited} pidfds have ended. */
    static class Calls implements ProducerFds.Syscalls {
        int next = 900;
        int opens;
        final Set<Integer> exited = new HashSet<>();
        final List<Integer> closed = new ArrayList<>();

        @Override
        public Libc.Result pidfdOpen(long pid) {
            opens++;
            return new Libc.Result(next++, 0);
        }

        @Override
        public Libc.Result pidfdGetfd(int pidfd, int fd) {
            return new Libc.Result(fd + 1000, 0);
        }

        @Override
        public void close(int fd) {
            closed.add(fd);
        }

        @Override
        public boolean exited(int pidfd) {
            return exited.contains(pidfd);
        }
    }

    private static final int PID = (int) ProcessHandle.current().pid();

    @Test
    void aMappedProducerKeepsOnePidfdAndItsStartTime() {
        Calls calls = new Calls();
        ProducerFds fds = new ProducerFds(calls);
        ProducerFds.Producer p = fds.producer(PID);
        assertEquals(TorchStorageKey.processStartTime(PID), p.start);
        fds.mapped(p);
        fds.release(p);
        for (int i = 0; i < 3; i++) {
            ProducerFds.Producer again = fds.producer(PID);
            assertSame(p, again, "one pidfd while a block is mapped");
            fds.release(again);
        }
        assertEquals(1, calls.opens);
        assertEquals(List.of(), calls.closed);
        fds.unmapped(p);
        assertEquals(List.of(900), calls.closed, "closed with the last block");
        assertEquals(0, fds.openPidfds());
    }

    @Test
    void aProducerNotMappedIsClosedWhenReleased() {
        Calls calls = new Calls();
        ProducerFds fds = new ProducerFds(calls);
        ProducerFds.Producer taking = fds.producer(PID);
        int[] taken = fds.take(taking, new int[] {5, 6});
        fds.release(taking);
        assertEquals(List.of(1005, 1006), List.of(taken[0], taken[1]));
        assertEquals(List.of(900), calls.closed);
        fds.release(fds.producer(PID));
        assertEquals(List.of(900, 901), calls.closed);
        assertEquals(0, fds.openPidfds());
    }

    @Test
    void anExitedProducerIsNotTakenForTheProcessThatNowHasItsPid() {
        Calls calls = new Calls();
        ProducerFds fds = new ProducerFds(calls);
        ProducerFds.Producer old = fds.producer(PID);
        fds.mapped(old);
        calls.exited.add(old.pidfd);
        ProducerFds.Producer now = fds.producer(PID);
        assertNotSame(old, now);
        assertEquals(901, now.pidfd);
        assertEquals(List.of(), calls.closed, "the old pidfd stays while its block is mapped");
        fds.release(now);
        fds.unmapped(old);
        assertEquals(List.of(901, 900), calls.closed);
        fds.unmapped(old);
        assertEquals(List.of(901, 900), calls.closed, "closed once");
    }

    @Test
    void aRefusedPidfdOpenIsReportedWhenTheDescriptorsAreTaken() {
        ProducerFds fds = new ProducerFds(new Calls() {
            @Override
            public Libc.Result pidfdOpen(long pid) {
                return new Libc.Result(-1, Libc.ESRCH);
            }
        });
        ProducerFds.Producer p = fds.producer(PID);
        TorchInteropException e = assertThrows(TorchInteropException.class, () -> fds.take(p, new int[] {5}));
        assertTrue(e.getMessage().contains("pidfd_open(" + PID + ") failed: no process " + PID + " here"),
                e.getMessage());
        assertEquals(0, fds.openPidfds());
    }

    @Test
    void theKernelTellsALiveProcessFromAnExitedOne() throws Exception {
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            Libc.Result pidfd = LibcProcesses.pidfdOpen(child.pid());
            org.junit.jupiter.api.Assumptions.assumeTrue(pidfd.value() >= 0, "pidfd_open unavailable here");
            try {
                assertEquals(false, ProducerFds.KERNEL.exited(pidfd.value()));
                child.destroyForcibly().waitFor();
                assertEquals(true, ProducerFds.KERNEL.exited(pidfd.value()));
            } finally {
                Libc.close(pidfd.value());
            }
        } finally {
            child.destroyForcibly();
        }
    }
}
