package org.cudaipc4j.simpleipc.host;

import static org.cudaipc4j.simpleipc.host.HostBackendTest.asIfForeign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CUDA's event semantics in one process: attachment A (device 0) writes and records, attachment B (device 1)
 * waits and reads. A "gate" is an event with a record still in flight (a ticket taken and not completed): a
 * stream that waits on it stands still until the test completes the ticket.
 */
class HostEventSemanticsTest {
    private static final int SIZE = 1 << 20;

    private HostBackend backend;
    private HostExport data;
    private HostExport gateExport;
    private Backend.Attachment a;
    private Backend.Attachment b;
    private Backend.PeerBuffer bufferA;
    private Backend.PeerEvent eventA;
    private Backend.PeerEvent eventB;
    private Backend.PeerEvent gateA;

    void setUp(Duration waitTimeout) {
        backend = new HostBackend(2, waitTimeout);
        data = (HostExport) backend.export(0, SIZE);
        gateExport = (HostExport) backend.export(1, 1);
        a = backend.attach(0);
        b = backend.attach(1);
        bufferA = a.openBuffer(asIfForeign(data.memoryHandle()), SIZE);
        eventA = a.openEvent(data.eventHandle());
        eventB = b.openEvent(data.eventHandle());
        gateA = a.openEvent(gateExport.eventHandle());
    }

    @BeforeEach
    void defaultSetUp() {
        setUp(Duration.ofSeconds(60));
    }

    @AfterEach
    void tearDown() {
        // Whatever a test left in flight, let it finish so the exports close at once.
        gateExport.event().complete(gateExport.event().lastTicket());
        backend.close();
        ShmFiles.assertNoneLeft(ProcessHandle.current().pid());
    }

    private long closeGate() {
        long ticket = gateExport.event().takeTicket();
        a.streamWait(gateA);
        return ticket;
    }

    private void openGate(long ticket) {
        gateExport.event().complete(ticket);
    }

    /** Runs {@code task} on a new platform thread named {@code name}. */
    private static <T> FutureTask<T> startThread(String name, Callable<T> task) {
        FutureTask<T> future = new FutureTask<>(task);
        Thread.ofPlatform().name(name).daemon().start(future);
        return future;
    }

    private static void assertAll(MemorySegment host, int value) {
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(-1, host.mismatch(arena.allocate(host.byteSize()).fill((byte) value)),
                    "every byte should be " + value);
        }
    }

    @Test
    void aWaitCoversTheRecordMadeBeforeIt() throws Exception {
        long gate = closeGate();
        a.fill(bufferA, (byte) 9);
        a.record(eventA); // ticket 1, held back by the gate
        b.streamWait(eventB); // captures ticket 1
        FutureTask<MemorySegment> copy = startThread("copy-to-host", () -> b.copyToHost(data.buffer()));
        assertTrue(Waits.until(10_000, () -> HostThreads.waitsForAnEvent(HostThreads.streamOf(1))),
                "B's stream never waited for A's record");
        assertFalse(copy.isDone(), "B's copy ran before A's record completed");
        assertEquals(0, data.event().completed());
        openGate(gate);
        assertAll(copy.get(5, TimeUnit.SECONDS), 9);
        assertEquals(1, data.event().completed());
    }

    @Test
    void aWaitDoesNotCoverARecordMadeAfterIt() {
        a.record(eventA);
        a.copyToHost(bufferA); // ticket 1 complete
        b.streamWait(eventB); // most recent record: ticket 1, already complete
        long gate = closeGate();
        a.fill(bufferA, (byte) 5);
        a.record(eventA); // ticket 2, held back
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertAll(b.copyToHost(data.buffer()), 0));
        assertEquals(2, data.event().lastTicket());
        assertEquals(1, data.event().completed());
        openGate(gate);
        assertAll(a.copyToHost(bufferA), 5);
    }

    @Test
    void aWaitForAPendingRecordDoesNotCoverALaterOne() throws Exception {
        long gate = closeGate();
        a.fill(bufferA, (byte) 1);
        a.record(eventA); // ticket 1
        b.streamWait(eventB); // waits for ticket 1 only
        long gate2 = gateExport.event().takeTicket();
        a.streamWait(gateA); // A stops again after ticket 1
        a.fill(bufferA, (byte) 2);
        a.record(eventA); // ticket 2
        CompletableFuture<MemorySegment> copy = CompletableFuture.supplyAsync(() -> b.copyToHost(data.buffer()));
        openGate(gate); // releases A up to ticket 1 only (completion is per ticket)
        assertAll(copy.get(5, TimeUnit.SECONDS), 1);
        assertEquals(1, data.event().completed());
        openGate(gate2);
        assertAll(a.copyToHost(bufferA), 2);
    }

    @Test
    void fillRecordWaitCopyStaysOrderedOverManyRounds() {
        Backend.PeerBuffer bufferB = b.openBuffer(asIfForeign(data.memoryHandle()), SIZE);
        for (int round = 1; round <= 300; round++) {
            // B's copy is synchronous, so A's next fill cannot overlap it.
            a.fill(bufferA, (byte) round);
            a.record(eventA);
            b.streamWait(eventB);
            MemorySegment host = b.copyToHost(bufferB);
            assertEquals(-1, host.asSlice(0, SIZE - 1).mismatch(host.asSlice(1)), "round " + round + ": not uniform");
            assertEquals((byte) round, host.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0), "round " + round);
        }
        assertEquals(300, data.event().completed());
    }

    @Test
    void ticketsAreTakenWhenRecordIsCalled() throws Exception {
        long gate = closeGate();
        a.record(eventA);
        a.record(eventA);
        assertEquals(2, data.event().lastTicket(), "tickets are taken at call time");
        assertEquals(0, data.event().completed());
        openGate(gate);
        a.copyToHost(bufferA);
        assertEquals(2, data.event().completed());
    }

    @Test
    void aWaitOnANeverRecordedEventIsANoOp() {
        b.streamWait(eventB);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertAll(b.copyToHost(data.buffer()), 0));
    }

    @Test
    void closingAnAttachmentEndsAWaitAtOnce() {
        closeGate();
        a.fill(bufferA, (byte) 4);
        long start = System.nanoTime();
        a.close(); // the wait (timeout 60 s) ends; the fill behind it is dropped
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15), "close waited as if for the timeout");
        assertAll(b.copyToHost(data.buffer()), 0);
    }

    @Test
    void exportCloseWaitsForTheEventsLastRecord() throws Exception {
        long gate = closeGate();
        a.fill(bufferA, (byte) 6);
        a.record(eventA);
        FutureTask<Void> closing = startThread("export-closer", () -> {
            data.close();
            return null;
        });
        assertTrue(Waits.until(10_000, () -> HostThreads.waitsForAnEvent("export-closer")),
                "closing the export never waited for the event's last record");
        assertFalse(closing.isDone(), "the export closed with a record in flight");
        openGate(gate);
        closing.get(5, TimeUnit.SECONDS);
        String memory = HostHandle.decode(data.memoryHandle()).segmentName();
        assertFalse(ShmFiles.ofThisProcess().contains(memory));
    }

    /** Waits (30 s at most) until a task of {@code attachment}'s stream has failed, without reporting it. */
    private static void awaitStreamFailure(Backend.Attachment attachment) {
        assertTrue(Waits.until(30_000, ((HostAttachment) attachment)::streamFailed),
                "no task of the stream failed in 30 s");
    }

    @Test
    void aTimedOutWaitFailsTheNextSynchronousCallAndStaysFailed() throws Exception {
        tearDown();
        setUp(Duration.ofMillis(200));
        closeGate();
        a.fill(bufferA, (byte) 8);
        awaitStreamFailure(a); // the copy's own wait, twice as long, would otherwise race a late worker
        BackendException e = assertThrows(BackendException.class, () -> a.copyToHost(bufferA));
        assertTrue(e.getMessage().startsWith("copyToHost failed: an earlier task on stream"), e.getMessage());
        assertInstanceOf(BackendException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("timed out after 0.200 s"), e.getCause().getMessage());
        // Sticky, as a CUDA error is: later calls fail too; the fill behind the wait never ran.
        assertThrows(BackendException.class, () -> a.fill(bufferA, (byte) 1));
        assertThrows(BackendException.class, () -> a.copyToHost(bufferA));
        assertAll(b.copyToHost(data.buffer()), 0);
        a.close(); // already reported: close does not throw again
    }

    @Test
    void aFailureNobodyReportedIsThrownByClose() throws Exception {
        tearDown();
        setUp(Duration.ofMillis(100));
        closeGate();
        awaitStreamFailure(a); // the wait times out on the worker
        BackendException e = assertThrows(BackendException.class, a::close);
        assertTrue(e.getMessage().startsWith("a task on stream"), e.getMessage());
        assertTrue(e.getCause().getMessage().contains("timed out"), e.getCause().getMessage());
    }

    @Test
    void exportCloseGivesUpAfterTheTimeoutButStillFrees() {
        tearDown();
        setUp(Duration.ofMillis(200));
        data.event().takeTicket(); // a record that never completes
        String memory = HostHandle.decode(data.memoryHandle()).segmentName();
        BackendException e = assertThrows(BackendException.class, data::close);
        assertTrue(e.getMessage().startsWith("closing the export on simulated device 0: wait for event"), e.getMessage());
        assertFalse(ShmFiles.ofThisProcess().contains(memory));
        data.close();
    }
}
