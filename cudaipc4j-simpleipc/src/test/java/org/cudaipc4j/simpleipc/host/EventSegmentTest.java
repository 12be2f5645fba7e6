package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.junit.jupiter.api.Test;

class EventSegmentTest {

    @Test
    void ticketsAreUniqueUnderContention() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            EventSegment e = EventSegment.initialize(arena.allocate(EventSegment.SIZE, 128), "test");
            int threads = 4;
            int each = 20_000;
            List<CompletableFuture<long[]>> takers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                takers.add(CompletableFuture.supplyAsync(() -> {
                    long[] got = new long[each];
                    for (int i = 0; i < each; i++) {
                        got[i] = e.takeTicket();
                    }
                    return got;
                }));
            }
            boolean[] seen = new boolean[threads * each + 1];
            for (var f : takers) {
                for (long ticket : f.get(30, TimeUnit.SECONDS)) {
                    assertTrue(ticket >= 1 && !seen[(int) ticket], "ticket " + ticket + " taken twice");
                    seen[(int) ticket] = true;
                }
            }
            assertEquals(threads * each, e.lastTicket());
            assertEquals(ProcessHandle.current().pid(), e.lastRecorderPid());
        }
    }

    @Test
    void completionIsMonotonic() {
        try (Arena arena = Arena.ofConfined()) {
            EventSegment e = EventSegment.initialize(arena.allocate(EventSegment.SIZE, 8), "test");
            e.complete(5);
            e.complete(3);
            assertEquals(5, e.completed());
            e.await(5, 1, () -> false); // complete: returns without waiting
        }
    }

    @Test
    void awaitTimesOutAndHonoursCancellation() {
        try (Arena arena = Arena.ofConfined()) {
            EventSegment e = EventSegment.initialize(arena.allocate(EventSegment.SIZE, 8), "evt");
            long ticket = e.takeTicket();
            long start = System.nanoTime();
            BackendException t = assertThrows(BackendException.class,
                    () -> e.await(ticket, TimeUnit.MILLISECONDS.toNanos(100), () -> false));
            assertEquals("wait for event evt record #1 timed out after 0.100 s", t.getMessage());
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(100));
            assertThrows(EventSegment.StreamClosedException.class,
                    () -> e.await(ticket, TimeUnit.SECONDS.toNanos(60), () -> true));
        }
    }

    @Test
    void rejectsSegmentsThatAreNotEvents() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(EventSegment.SIZE, 8);
            assertEquals("segment x is not a host event (magic 0x0000000000000000)",
                    assertThrows(BackendException.class, () -> EventSegment.attach(m, "x")).getMessage());
            assertThrows(BackendException.class, () -> EventSegment.attach(arena.allocate(100, 8), "y"));
            EventSegment.initialize(m, "x");
            EventSegment.attach(m, "x");
        }
    }
}
