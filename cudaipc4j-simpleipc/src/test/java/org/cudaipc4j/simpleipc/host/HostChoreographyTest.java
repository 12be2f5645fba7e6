package org.cudaipc4j.simpleipc.host;

import static org.cudaipc4j.simpleipc.host.HostBackendTest.asIfForeign;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * simpleIPC's steps with one thread and one attachment per "child": for step i, buffer b = (i + id) % n: wait on
 * event b, fill buffer b with id, record event b, barrier; at the end every byte of buffer id is (id + 1) % n.
 */
class HostChoreographyTest {
    private static final int SIZE = 1 << 20;

    @AfterEach
    void nothingLeft() {
        ShmFiles.assertNoneLeft(ProcessHandle.current().pid());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void everyBufferEndsWithTheNextSiblingsValue(int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try (HostBackend backend = new HostBackend(n, Duration.ofSeconds(30))) {
            List<Backend.Export> exports = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                exports.add(backend.export(d, SIZE));
            }
            CyclicBarrier barrier = new CyclicBarrier(n);
            List<Future<Integer>> children = new ArrayList<>();
            for (int id = 0; id < n; id++) {
                int me = id;
                children.add(pool.submit(() -> runChild(backend, exports, barrier, me, n)));
            }
            for (int id = 0; id < n; id++) {
                assertEquals(-1, children.get(id).get(60, TimeUnit.SECONDS), "child " + id + ": first mismatch");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Returns the index of the first wrong byte in its own buffer, or -1. */
    private static int runChild(HostBackend backend, List<Backend.Export> exports, CyclicBarrier barrier, int id, int n)
            throws Exception {
        try (Backend.Attachment a = backend.attach(id)) {
            List<Backend.PeerBuffer> buffers = new ArrayList<>();
            List<Backend.PeerEvent> events = new ArrayList<>();
            for (Backend.Export e : exports) {
                buffers.add(a.openBuffer(asIfForeign(e.memoryHandle()), SIZE));
                events.add(a.openEvent(e.eventHandle()));
            }
            for (int step = 0; step < n; step++) {
                int b = (step + id) % n;
                a.streamWait(events.get(b));
                a.fill(buffers.get(b), (byte) (id + 1)); // never 0, which new segments hold already
                a.record(events.get(b));
                barrier.await(30, TimeUnit.SECONDS);
            }
            a.streamWait(events.get(id));
            MemorySegment host = a.copyToHost(buffers.get(id));
            byte expected = (byte) ((id + 1) % n + 1); // the next sibling's value
            for (int i = 0; i < SIZE; i++) {
                if (host.get(ValueLayout.JAVA_BYTE, i) != expected) {
                    return i;
                }
            }
            return -1;
        }
    }
}
