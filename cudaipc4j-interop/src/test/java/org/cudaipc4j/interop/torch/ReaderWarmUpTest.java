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
import org.cudaipc4j.interop.OpenPhases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reader's warm-up without a GPU (its Java side) and the phases an open is timed by. */
class ReaderWarmUpTest {
    @TempDir
    Path dir;

    /** Records the pidfd calls and their results, and runs them for real. */
    static final class Recording implements ProducerFds.Syscalls {
        final List<String> calls = new ArrayList<>();
        /** Descriptors the calls returned, and how often each was closed since. */
        final Map<Integer, Integer> opened = new java.util.LinkedHashMap<>();

        @Override
        public Libc.Result pidfdOpen(long pid) {
            return record("pidfd_open", ProducerFds.KERNEL.pidfdOpen(pid));
        }

        @Override
        public Libc.Result pidfdGetfd(int pidfd, int fd) {
            return record("pidfd_getfd", ProducerFds.KERNEL.pidfdGetfd(pidfd, fd));
        }

        private Libc.Result record(String call, Libc.Result r) {
            calls.add(call + (r.value() >= 0 ? "" : " refused"));
            if (r.value() >= 0) {
                opened.put(r.value(), 0);
            }
            return r;
        }

        @Override
        public void close(int fd) {
            calls.add("close");
            opened.computeIfPresent(fd, (k, n) -> n + 1);
            ProducerFds.KERNEL.close(fd);
        }
    }

    @Test
    void theJavaSideRunsEveryNativeCallOfAnExpandableOpenAndLeavesNothingBehind() throws IOException {
        Recording calls = new Recording();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> before = warmDirs(tmp);
        List<Path> booksBefore = leaseBooks();
        ReaderWarmUp.javaPath(new ProducerFds(calls));
        // pidfd_open of this process, then pidfd_getfd of its own descriptor through it: each may be refused (a
        // seccomp filter, an old kernel), then the open reports it; whatever they gave is closed once.
        assertEquals("pidfd_open", calls.calls.getFirst().replace(" refused", ""), "pidfd_open linked: " + calls.calls);
        if (calls.calls.getFirst().equals("pidfd_open")) {
            assertEquals("pidfd_getfd", calls.calls.get(1).replace(" refused", ""),
                    "pidfd_getfd linked: " + calls.calls);
        }
        calls.opened.forEach((fd, closes) -> assertEquals(1, closes, "descriptor " + fd + " closed once: "
                + calls.calls));
        List<Path> after = warmDirs(tmp);
        after.removeAll(before);
        assertEquals(List.of(), after, "the scratch counter file and its directory are removed");
        assertEquals(booksBefore, leaseBooks(), "the scratch lease book is removed");
    }

    private static List<Path> warmDirs(Path tmp) throws IOException {
        try (var s = Files.list(tmp)) {
            String mine = "cudaipc4j-warm-" + ProcessHandle.current().pid() + "-"; // this JVM's only
            return new ArrayList<>(s.filter(p -> p.getFileName().toString().startsWith(mine)).toList());
        }
    }

    private static List<Path> leaseBooks() throws IOException {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return List.of();
        }
        try (var s = Files.list(shm)) {
            String mine = "cudaipc4j-" + ProcessHandle.current().pid() + "-"; // this JVM's segments only
            return s.filter(p -> p.getFileName().toString().startsWith(mine)
                    && p.getFileName().toString().contains("torchleases")).sorted().toList();
        }
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
