package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@GpuTest
class EventGpuTest {
    private static final long PAGE = 4096;
    private static Context ctx;
    private static Stream stream;

    @BeforeAll
    static void open() {
        ctx = Context.retainPrimary(Device.get(0));
        stream = Stream.create(ctx, true);
    }

    @AfterAll
    static void close() {
        Closeables.closeAll(stream, ctx);
    }

    @Test
    void timingEventsMeasureWorkBetweenThem() {
        try (Event start = Event.create(ctx); Event end = Event.create(ctx);
             DeviceBuffer buf = DeviceBuffer.allocate(ctx, 64L << 20)) {
            assertTrue(start.query(), "a never-recorded event counts as complete");
            start.record(stream);
            for (int i = 0; i < 8; i++) {
                buf.memsetAsync((byte) i, stream);
            }
            end.record(stream);
            end.synchronize();
            assertTrue(end.query());
            float ms = end.elapsedMillis(start);
            assertTrue(ms > 0 && ms < 10_000, "elapsed " + ms + " ms");
        }
    }

    @Test
    void streamWaitsOnAnotherStreamsEvent() {
        try (Arena arena = Arena.ofConfined();
             Stream other = Stream.create(ctx, true);
             Event done = Event.create(ctx, EventFlag.DISABLE_TIMING);
             Event after = Event.create(ctx, EventFlag.DISABLE_TIMING);
             DeviceBuffer buf = DeviceBuffer.allocate(ctx, 32L << 20)) {
            // The int at byte 0 holds the other stream until this thread stores 1; the one at byte 8 is written by
            // the waiting stream once its wait is over.
            MemorySegment words = arena.allocate(PAGE, PAGE);
            try (HostRegistration host = HostRegistration.register(ctx, words)) {
                try {
                    other.waitValue32(host.devicePointer(0), 1, false);
                    buf.memsetAsync((byte) 1, other);
                    done.record(other);
                    stream.waitEvent(done);
                    buf.memsetAsync(0, 1, (byte) 2, stream);
                    stream.writeValue32(host.devicePointer(8), 1);
                    after.record(stream);
                    assertFalse(Waits.until(200, after::query), "the stream did not wait for the other's event");
                    assertEquals(0, words.get(JAVA_INT, 8), "work queued after the wait ran before the event");
                } finally {
                    words.set(JAVA_INT, 0, 1); // releases the other stream, so nothing stays blocked
                }
                stream.synchronize();
                assertTrue(after.query(), "the wait ended once the event completed");
                assertEquals(1, words.get(JAVA_INT, 8), "the work after the wait ran");
                assertEquals(2, buf.read(0, 1)[0], "the second memset ran after the first");
                assertEquals(1, buf.read(1, 1)[0]);
            }
        }
    }

    @Test
    void interprocessEventsNeedBothFlags() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> Event.create(ctx, EventFlag.INTERPROCESS));
        assertEquals("an INTERPROCESS event must also be DISABLE_TIMING", bad.getMessage());
        try (Event timing = Event.create(ctx);
             Event ipc = Event.create(ctx, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING)) {
            assertEquals(EnumSet.of(EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING), ipc.flags());
            assertThrows(IllegalStateException.class, () -> ipc.elapsedMillis(timing));
            ipc.record(stream);
            stream.waitEvent(ipc);
            ipc.synchronize();
            assertTrue(ipc.query());
        }
    }

    @Test
    void closeIsIdempotent() {
        Event e = Event.create(ctx, EventFlag.BLOCKING_SYNC);
        e.close();
        e.close();
        assertThrows(IllegalStateException.class, () -> e.record(stream));
        Stream s = Stream.create(ctx, false);
        s.close();
        s.close();
        assertThrows(IllegalStateException.class, s::synchronize);
    }
}
