package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.base.Libc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reader's warm-up without a GPU (its Java side) and the phases an open is timed by. */
class ReaderWarmUpTest {
    @TempDir
    Path dir;

    /** Records the pidfd calls and runs them for real. */
    static final class Recording implements ProducerFds.Syscalls {
        final List<String> calls = new ArrayList<>();

        @Override
        public Libc.Result pidfdOpen(long pid) {
            calls.add("pidfd_open");
            return ProducerFds.KERNEL.pidfdOpen(pid);
        }

        @Override
        public Libc.Result pidfdGetfd(int pidfd, int fd) {
            calls.add("pidfd_getfd");
            return ProducerFds.KERNEL.pidfdGetfd(pidfd, fd);
        }

        @Override
        public void close(int fd) {
            calls.add("close");
            ProducerFds.KERNEL.close(fd);
        }
    }

    @Test
    void theJavaSideRunsEveryNativeCallOfAnExpandableOpenAndLeavesNothingBehind() throws IOException {
        Recording calls = new Recording();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> before = warmDirs(tmp);
        List<Path> shmBefore = leaseBooks();
        ReaderWarmUp.javaPath(new ProducerFds(calls));
        assertTrue(calls.calls.contains("pidfd_open"), "pidfd_open linked: " + calls.calls);
        // pidfd_getfd may be refused where a seccomp filter or an old kernel hides it; then the open reports it.
        if (calls.calls.contains("pidfd_getfd")) {
            assertEquals(List.of("pidfd_open", "pidfd_getfd", "close", "close"), calls.calls,
                    "the copy and the pidfd closed");
        }
        assertEquals(before, warmDirs(tmp), "the scratch counter file and its directory are removed");
        assertEquals(shmBefore, leaseBooks(), "the scratch lease book is removed");
    }

    private static List<Path> warmDirs(Path tmp) throws IOException {
        try (var s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("cudaipc4j-warm")).sorted().toList();
        }
    }

    private static List<Path> leaseBooks() throws IOException {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return List.of();
        }
        try (var s = Files.list(shm)) {
            return s.filter(p -> p.getFileName().toString().contains("torchleases")).sorted().toList();
        }
    }

    @Test
    void aSlowFirstRefusalDoesNotStopTheRefusalsButALaterOneDoes() {
        long slow = ReaderWarmUp.SLOW_REFUSAL_NANOS;
        for (int round = 0; round < ReaderWarmUp.UNJUDGED_REFUSALS; round++) {
            assertTrue(ReaderWarmUp.keepRefusing(round, 10_000_000), "round " + round + " links the call");
        }
        int judged = ReaderWarmUp.UNJUDGED_REFUSALS;
        assertTrue(ReaderWarmUp.keepRefusing(judged, slow - 1), "a fast refusal goes on");
        assertFalse(ReaderWarmUp.keepRefusing(judged, slow), "a slow refusal stops them");
        assertFalse(ReaderWarmUp.keepRefusing(ReaderWarmUp.ROUNDS - 1, 10_000_000));
    }

    @Test
    void leasingIsTimedAsCounterAndBookAndACacheHitAsCounterOnly() {
        String name = CounterFiles.create(dir, 2);
        TorchStorageKey key = new TorchStorageKey("c:1", 0, 0, 4096);
        try (TorchLeases leases = TorchLeases.start(dir, false, 4)) {
            OpenPhases first = new OpenPhases();
            first.start();
            Lease a = leases.acquire(key, name, 0, first);
            OpenPhases hit = new OpenPhases();
            hit.start();
            Lease b = leases.acquire(key, name, 1, hit);
            assertTrue(first.nanos(OpenPhases.Phase.COUNTER) > 0 && first.nanos(OpenPhases.Phase.BOOK) > 0,
                    first.byCode().toString());
            assertTrue(hit.nanos(OpenPhases.Phase.COUNTER) > 0, hit.byCode().toString());
            assertEquals(0, hit.nanos(OpenPhases.Phase.BOOK), "a hit holds no new slot");
            assertEquals(0, CounterFiles.slot(dir, name, 1), "the hit's slot went back at once");
            b.release();
            a.release();
            assertEquals(0, CounterFiles.slot(dir, name, 0));
        }
    }

    @Test
    void phasesAddUpByCodeInOrderAndClear() {
        OpenPhases p = new OpenPhases();
        p.start();
        p.lap(OpenPhases.Phase.KEY);
        p.lap(OpenPhases.Phase.EVENT_OPEN);
        p.lap(OpenPhases.Phase.KEY);
        Map<String, Long> m = p.byCode();
        assertEquals(List.of("key", "event_open"), List.copyOf(m.keySet()));
        assertEquals(p.nanos(OpenPhases.Phase.KEY), m.get("key"));
        p.clear();
        assertTrue(p.byCode().isEmpty());
        OpenPhases.lap(null, OpenPhases.Phase.VIEW); // an untimed open
    }
}
