package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ControlBlockTest {
    private static final long SELF = ProcessHandle.current().pid();

    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    private static long pages(long bytes) {
        return (bytes + 4095) / 4096 * 4096;
    }

    @Test
    void abortListenersRunInTheProcessThatAbortsWhoeverWon() {
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
            b.onAbort(runs::incrementAndGet);
            b.onAbort(() -> {
                throw new IllegalStateException("a failing listener does not stop the others or the abort");
            });
            b.abort(0, "first");
            b.abort(ControlBlock.PARENT, "second");
            assertEquals(2, runs.get());
            assertEquals("aborted by process 0: first", b.abortState().orElseThrow().describe());
        }
    }

    private static long offset(String field) {
        return ControlBlock.HEADER.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    @Test
    void layoutIsAlignedAndSizedFromTheCountAndTheSlotData() {
        ControlBlock.checkLayout();
        assertEquals(0, offset("barrierCount") % 128);
        assertEquals(0, offset("barrierSense") % 128);
        assertNotEquals(offset("barrierCount") / 128, offset("barrierSense") / 128);
        assertEquals(896, ControlBlock.HEADER.byteSize());
        assertEquals(128, ControlBlock.SLOT_HEADER.byteSize());
        // TestSupport.SLOT is 72 bytes: one line of slot header, one line of data; blocks are whole pages.
        assertEquals(pages(896 + 32 * 256), ControlBlock.sizeFor(32, TestSupport.SLOT));
        assertEquals(pages(896 + 1024 * 256), ControlBlock.sizeFor(ControlBlock.MAX_PROCESSES, TestSupport.SLOT));
        assertEquals(4096, ControlBlock.sizeFor(3, ControlBlock.NO_SLOT_DATA));
        assertEquals(pages(896 + 2 * (128 + 256)), ControlBlock.sizeFor(2,
                MemoryLayout.sequenceLayout(129, ValueLayout.JAVA_BYTE)));
        assertEquals(0, ControlBlock.sizeFor(7, TestSupport.SLOT) % 4096);
        assertThrows(IllegalArgumentException.class, () -> ControlBlock.sizeFor(0, TestSupport.SLOT));
        assertThrows(IllegalArgumentException.class,
                () -> ControlBlock.sizeFor(1, ValueLayout.JAVA_LONG.withByteAlignment(256)));
        assertThrows(IllegalArgumentException.class, () -> ControlBlock.create(ControlBlock.MAX_PROCESSES + 1, TestSupport.SLOT));
    }

    @Test
    void headerAndSlotsRoundTripBetweenCreatorAndOpener() throws IOException {
        try (ControlBlock parent = ControlBlock.create(3, TestSupport.SLOT)) {
            Path file = parent.segment().path();
            assertEquals(ControlBlock.sizeFor(3, TestSupport.SLOT), Files.size(file));
            assertEquals("rw-------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)));
            assertEquals(3, parent.processCount());
            assertEquals(SELF, parent.creatorPid());
            assertFalse(parent.isReady());
            assertEquals(0, TestSupport.round(parent, 2), "slot data starts zeroed");
            assertEquals(ProcessStatus.NOT_STARTED, parent.status(1));
            assertEquals(0, parent.slotData(1).address() % 8, "slot data is aligned as its layout asks");

            byte[] blob = handle(1);
            TestSupport.setRound(parent, 1, 7);
            MemorySegment.copy(blob, 0, parent.slotData(1), ValueLayout.JAVA_BYTE, 8, 64);
            parent.publishReady();

            try (ControlBlock child = ControlBlock.open(parent.name(), TestSupport.SLOT, false)) {
                assertEquals(parent.runToken(), child.runToken());
                assertEquals(SELF, child.creatorPid());
                assertEquals(3, child.processCount());
                assertTrue(child.isReady());
                assertFalse(child.isCreator());
                assertEquals(7, TestSupport.round(child, 1));
                assertArrayEquals(blob, child.slotData(1).asSlice(8, 64).toArray(ValueLayout.JAVA_BYTE));
                assertArrayEquals(new byte[64], child.slotData(0).asSlice(8, 64).toArray(ValueLayout.JAVA_BYTE));

                child.setPid(2, 4242);
                child.setStatus(2, ProcessStatus.RUNNING);
                child.heartbeat(2);
                TestSupport.setRound(child, 2, -99);
                assertEquals(4242, parent.pid(2));
                assertEquals(ProcessStatus.RUNNING, parent.status(2));
                assertTrue(Math.abs(System.currentTimeMillis() - parent.lastHeartbeatMillis(2)) < 5_000);
                assertEquals(0, parent.lastHeartbeatMillis(0));
                assertEquals(-99, TestSupport.round(parent, 2));
            }
            assertTrue(Files.exists(file));
        }
    }

    @Test
    void aBlockMadeForAnotherSlotFormatIsRefused() {
        try (ControlBlock parent = ControlBlock.create(2, TestSupport.SLOT)) {
            StructLayout renamed = MemoryLayout.structLayout(ValueLayout.JAVA_LONG.withName("count"),
                    MemoryLayout.sequenceLayout(64, ValueLayout.JAVA_BYTE).withName("blob"));
            ControlBlockException e = assertThrows(ControlBlockException.class,
                    () -> ControlBlock.open(parent.name(), renamed, false));
            assertTrue(e.getMessage().startsWith("control block " + parent.name()
                    + " holds slot data of another format (72 bytes, fingerprint "), e.getMessage());
            assertThrows(ControlBlockException.class,
                    () -> ControlBlock.open(parent.name(), ControlBlock.NO_SLOT_DATA, false));
        }
    }

    @Test
    void runTokensDifferBetweenRuns() {
        try (ControlBlock a = ControlBlock.create(1, TestSupport.SLOT); ControlBlock b = ControlBlock.create(1, TestSupport.SLOT)) {
            assertNotEquals(a.runToken(), b.runToken());
            assertNotEquals(a.name(), b.name());
        }
    }

    @Test
    void badArgumentsAreRefused() {
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            assertThrows(IndexOutOfBoundsException.class, () -> b.slotData(2));
            assertThrows(IndexOutOfBoundsException.class, () -> b.status(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> b.barrier(2, Duration.ofSeconds(1)));
            assertThrows(IndexOutOfBoundsException.class, () -> b.abort(5, "x"));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> b.slotData(0).get(ValueLayout.JAVA_BYTE, TestSupport.SLOT.byteSize()), "a slot's data is bounded");
            assertThrows(IllegalArgumentException.class, () -> b.barrier(0, Duration.ZERO));
        }
    }

    @Test
    void firstAbortWinsAndReasonsAreCutAtACharacterBoundary() {
        try (ControlBlock b = ControlBlock.create(4, TestSupport.SLOT)) {
            assertEquals(Optional.empty(), b.abortState());
            assertFalse(b.isAborted());
            String longReason = "é".repeat(100);
            b.abort(2, longReason);
            b.abort(3, "second");
            b.abort(ControlBlock.PARENT, "third");
            assertTrue(b.isAborted());
            ControlBlock.Abort abort = b.abortState().orElseThrow();
            assertEquals(2, abort.process());
            assertEquals("é".repeat(60), abort.reason());
            assertTrue(abort.reason().getBytes(StandardCharsets.UTF_8).length <= ControlBlock.MAX_REASON_BYTES);
            assertEquals("aborted by process 2: " + "é".repeat(60), abort.describe());
        }
        try (ControlBlock b = ControlBlock.create(1, TestSupport.SLOT)) {
            b.abort(ControlBlock.PARENT, "line one\nline two");
            assertEquals(new ControlBlock.Abort(-1, "line one line two"), b.abortState().orElseThrow());
            assertEquals("aborted by the parent: line one line two", b.abortState().orElseThrow().describe());
        }
    }

    @Test
    void concurrentAbortsLeaveExactlyOneConsistentWinner() throws Exception {
        for (int trial = 0; trial < 20; trial++) {
            try (ControlBlock b = ControlBlock.create(8, TestSupport.SLOT)) {
                CompletableFuture<?>[] all = new CompletableFuture<?>[8];
                for (int p = 0; p < 8; p++) {
                    int process = p;
                    all[p] = CompletableFuture.runAsync(() -> b.abort(process, "reason of " + process));
                }
                CompletableFuture.allOf(all).get(10, TimeUnit.SECONDS);
                ControlBlock.Abort abort = b.abortState().orElseThrow();
                assertEquals("reason of " + abort.process(), abort.reason());
            }
        }
    }

    @Test
    void awaitReadyReturnsOncePublishedAndFailsClearlyOtherwise() throws Exception {
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            CompletableFuture<Void> waiter = waiting(() -> {
                b.awaitReady(Duration.ofSeconds(30), "handles");
                return null;
            });
            assertFalse(waiter.isDone());
            b.publishReady();
            waiter.get(15, TimeUnit.SECONDS);
        }
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            long t0 = System.nanoTime();
            CoordinationException e = assertThrows(CoordinationException.class,
                    () -> b.awaitReady(Duration.ofMillis(300), "handles"));
            assertEquals("timed out after 300 ms waiting for the parent to publish its handles", e.getMessage());
            assertTrue(System.nanoTime() - t0 < 15_000_000_000L);
        }
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            CompletableFuture<Void> waiter = waiting(() -> {
                b.awaitReady(Duration.ofSeconds(30), "handles");
                return null;
            });
            b.abort(ControlBlock.PARENT, "no device");
            var ex = assertThrows(java.util.concurrent.ExecutionException.class, () -> waiter.get(15, TimeUnit.SECONDS));
            assertEquals("waiting for the parent's handles: aborted by the parent: no device", ex.getCause().getMessage());
        }
    }

    @Test
    void theAssignmentIsPublishedOnceOrTheGroupIsDismissed() throws Exception {
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            CompletableFuture<Boolean> waiter = waiting(() -> b.awaitAssignment(Duration.ofSeconds(30)));
            assertFalse(waiter.isDone());
            TestSupport.setRound(b, 1, 3);
            b.publishAssignment();
            assertTrue(waiter.get(15, TimeUnit.SECONDS));
            assertEquals(3, TestSupport.round(b, 1));
            b.dismiss(); // too late: the assignment stands
            assertTrue(b.awaitAssignment(Duration.ofMillis(10)));
            assertThrows(IllegalStateException.class, b::publishAssignment);
            assertFalse(b.isReady(), "the assignment is not the ready flag");
        }
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            CompletableFuture<Boolean> waiter = waiting(() -> b.awaitAssignment(Duration.ofSeconds(30)));
            b.dismiss();
            assertFalse(waiter.get(15, TimeUnit.SECONDS));
            assertThrows(IllegalStateException.class, b::publishAssignment);
        }
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            CoordinationException e = assertThrows(CoordinationException.class,
                    () -> b.awaitAssignment(Duration.ofMillis(200)));
            assertEquals("timed out after 200 ms waiting for the parent to publish its assignment",
                    e.getMessage());
            b.abort(ControlBlock.PARENT, "no device");
            e = assertThrows(CoordinationException.class, () -> b.awaitAssignment(Duration.ofSeconds(5)));
            assertEquals("waiting for the parent's assignment: aborted by the parent: no device",
                    e.getMessage());
        }
    }

    @Test
    void aSlotBelongsToOneLiveProcess() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try (ControlBlock b = ControlBlock.create(2, TestSupport.SLOT)) {
            b.claimSlot(0, sleeper.pid());
            CoordinationException e = assertThrows(CoordinationException.class, () -> b.claimSlot(0, SELF));
            assertEquals("process slot 0 of control block " + b.name() + " is already taken by pid " + sleeper.pid(),
                    e.getMessage());
            b.claimSlot(0, sleeper.pid());
            sleeper.destroyForcibly().waitFor();
            b.claimSlot(0, SELF);
            assertEquals(SELF, b.pid(0));
            b.claimSlot(1, SELF);
            assertEquals(SELF, b.pid(1));
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
    }

    @Test
    void openInsistsThatOurParentCreatedTheBlock() {
        try (ControlBlock b = ControlBlock.create(1, TestSupport.SLOT)) {
            long parent = ProcessHandle.current().parent().orElseThrow().pid();
            ControlBlockException e = assertThrows(ControlBlockException.class, () -> ControlBlock.open(b.name(), TestSupport.SLOT));
            assertEquals("control block " + b.name() + " was created by pid " + SELF + ", not by our parent (pid "
                    + parent + ")", e.getMessage());
        }
    }

    @Test
    void badMagicIsRefused() {
        assertCorruptionRefused(m -> m.memory().set(ValueLayout.JAVA_LONG, offset("magic"), 0x1122L),
                "has bad magic 0x1122: not a cudaipc4j control block");
    }

    @Test
    void wrongVersionIsRefused() {
        assertCorruptionRefused(m -> m.memory().set(ValueLayout.JAVA_INT, offset("version"), 99),
                "has layout version 99, this build reads version " + ControlBlock.LAYOUT_VERSION);
    }

    @Test
    void wrongProcessCountIsRefused() {
        assertCorruptionRefused(m -> m.memory().set(ValueLayout.JAVA_INT, offset("processCount"), 0),
                "has an invalid process count 0 (1 to 1024 allowed)");
        assertCorruptionRefused(m -> m.memory().set(ValueLayout.JAVA_INT, offset("processCount"), 5000),
                "has an invalid process count 5000 (1 to 1024 allowed)");
    }

    @Test
    void countThatDisagreesWithTheFileSizeIsRefused() {
        long size4 = ControlBlock.sizeFor(4, TestSupport.SLOT);
        // Counts within one page share a size; 40 processes need three pages.
        assertCorruptionRefused(m -> m.memory().set(ValueLayout.JAVA_INT, offset("processCount"), 40),
                "has the wrong size: file is " + size4 + " bytes, header says " + size4 + ", 40 processes need "
                        + ControlBlock.sizeFor(40, TestSupport.SLOT));
    }

    @Test
    void grownOrShrunkFileIsRefused() {
        long size4 = ControlBlock.sizeFor(4, TestSupport.SLOT);
        assertCorruptionRefused(m -> resize(m.path(), size4 + 4096),
                "has the wrong size: file is " + (size4 + 4096) + " bytes, header says " + size4 + ", 4 processes need "
                        + size4);
        assertCorruptionRefused(m -> resize(m.path(), 100), "is too small (100 bytes) to be a control block");
    }

    @Test
    void blockItsExpectedOwnerDoesNotOwnIsRefused() {
        long us = SharedSegmentTest.UID;
        long other = SharedSegmentTest.OTHER_UID;
        try (ControlBlock b = ControlBlock.create(4, TestSupport.SLOT)) {
            ControlBlockException e = assertThrows(ControlBlockException.class,
                    () -> ControlBlock.open(b.name(), TestSupport.SLOT, false, other));
            assertEquals("shared segment " + b.segment().path() + " is owned by uid " + us + ", not by us (uid "
                    + other + "); refusing to use it", e.getMessage());
            // With the owner it has, the same block opens: the refusal above is the owner's doing.
            try (ControlBlock opened = ControlBlock.open(b.name(), TestSupport.SLOT, false, us)) {
                assertEquals(4, opened.processCount());
            }
        }
    }

    @Test
    void anotherUsersBlockIsRefused() {
        SharedSegmentTest.assumeRoot();
        assertCorruptionRefused(m -> {
            try {
                Files.setAttribute(m.path(), "unix:uid", (int) SharedSegmentTest.OTHER_UID);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, "is owned by uid " + SharedSegmentTest.OTHER_UID + ", not by us (uid " + SharedSegmentTest.UID
                + "); refusing to use it");
    }

    @Test
    void segmentThatIsNotAControlBlockIsRefused() {
        try (SharedSegment plain = SharedSegment.create(ControlBlock.sizeFor(2, TestSupport.SLOT))) {
            ControlBlockException e = assertThrows(ControlBlockException.class,
                    () -> ControlBlock.open(plain.name(), TestSupport.SLOT, false));
            assertEquals("control block " + plain.name() + " has bad magic 0x0: not a cudaipc4j control block",
                    e.getMessage());
        }
    }

    @Test
    void missingBlockIsAControlBlockException() {
        ControlBlockException e = assertThrows(ControlBlockException.class,
                () -> ControlBlock.open("cudaipc4j-" + SELF + "-0000000000000000", TestSupport.SLOT, false));
        assertTrue(e.getMessage().endsWith("does not exist"), e.getMessage());
    }

    /** Creates a 4-process block, damages it through a second mapping, and checks that open() refuses it. */
    private static void assertCorruptionRefused(Consumer<SharedSegment> damage, String expectedTail) {
        try (ControlBlock b = ControlBlock.create(4, TestSupport.SLOT)) {
            try (SharedSegment raw = SharedSegment.open(b.name())) {
                damage.accept(raw);
            }
            ControlBlockException e = assertThrows(ControlBlockException.class, () -> ControlBlock.open(b.name(), TestSupport.SLOT, false));
            assertTrue(e.getMessage().endsWith(expectedTail), e.getMessage());
            assertTrue(e.getMessage().contains(b.name()), e.getMessage());
        }
    }

    private static void resize(Path file, long size) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            if (size < ch.size()) {
                ch.truncate(size);
            } else {
                ch.write(ByteBuffer.wrap(new byte[] {0}), size - 1);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] handle(int seed) {
        byte[] h = new byte[64];
        for (int i = 0; i < h.length; i++) {
            h[i] = (byte) (seed * 31 + i);
        }
        return h;
    }

    @Test
    void aNamedBlockIsCreatedUnderANameOfThisProcessOnly() {
        String name = ControlBlock.newName();
        assertTrue(name.startsWith(SharedSegment.PREFIX + ProcessHandle.current().pid() + "-"), name);
        try (ControlBlock b = ControlBlock.create(name, 2, TestSupport.SLOT)) {
            assertEquals(name, b.name());
            assertEquals(2, b.processCount());
            assertThrows(SharedSegmentException.class, () -> ControlBlock.create(name, 2, TestSupport.SLOT));
        }
        assertThrows(IllegalArgumentException.class, () -> ControlBlock.create("cudaipc4j-1-0123456789abcdef", 1, TestSupport.SLOT));
        assertThrows(IllegalArgumentException.class, () -> ControlBlock.create("other-name", 1, TestSupport.SLOT));
    }

    @Test
    void awaitingABlockGivesUpAtTheTimeoutAndChecksTheCreatorAtOnce() {
        // A block our parent would make (its pid in the name): waited for until the timeout.
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        String parents = "cudaipc4j-" + parent + "-0123456789abcdef";
        ControlBlockException late = assertThrows(ControlBlockException.class,
                () -> ControlBlock.awaitCreated(() -> parents, TestSupport.SLOT, Duration.ofMillis(100)));
        assertEquals("control block " + parents + " was not created within 100 ms", late.getMessage());
        // A block of this JVM's (a live process that is not our parent): refused at once, there or not yet.
        String name = ControlBlock.newName();
        String expected = "control block " + name + " is pid " + SELF + "'s, not our parent's (pid " + parent + ")";
        long t0 = System.nanoTime();
        ControlBlockException notYet = assertThrows(ControlBlockException.class,
                () -> ControlBlock.awaitCreated(() -> name, TestSupport.SLOT, Duration.ofSeconds(30)));
        assertEquals(expected, notYet.getMessage());
        try (ControlBlock b = ControlBlock.create(name, 1, TestSupport.SLOT)) {
            ControlBlockException foreign = assertThrows(ControlBlockException.class,
                    () -> ControlBlock.awaitCreated(() -> name, TestSupport.SLOT, Duration.ofSeconds(30)));
            assertEquals("control block " + name + " was created by pid " + SELF + ", not by our parent (pid "
                    + parent + ")", foreign.getMessage());
        }
        assertTrue(System.nanoTime() - t0 < java.util.concurrent.TimeUnit.SECONDS.toNanos(20));
    }

    /**
     * A child whose parent ended before the child first looked (adopted by init or a subreaper already) is told at
     * once by the pid in the block's name, instead of taking its new parent for the creator and waiting out the
     * timeout for a block nobody makes.
     */
    @Test
    void aWaitForTheBlockOfAParentThatEndedBeforeItLookedFailsAtOnce() {
        long ended = (1L << 22) + 1; // above the kernel's largest pid: no process has it
        String name = "cudaipc4j-" + ended + "-0123456789abcdef";
        long t0 = System.nanoTime();
        ControlBlockException gone = assertThrows(ControlBlockException.class,
                () -> ControlBlock.awaitCreated(() -> name, TestSupport.SLOT, Duration.ofSeconds(30)));
        assertEquals("the parent (pid " + ended + ") is gone; it never created control block " + name,
                gone.getMessage());
        assertTrue(System.nanoTime() - t0 < java.util.concurrent.TimeUnit.SECONDS.toNanos(20));
    }

    @Test
    void aFileThatNeverGetsAHeaderIsNamedWhenTheWaitEnds() throws Exception {
        // named as our parent's block would be: waited for until the timeout
        String name = "cudaipc4j-" + ProcessHandle.current().parent().orElseThrow().pid() + "-" + Long.toHexString(
                new java.util.Random().nextLong() | Long.MIN_VALUE);
        java.nio.file.Path file = SharedSegment.directory().resolve(name);
        java.nio.file.Files.write(file, new byte[12]);
        try {
            ControlBlockException e = assertThrows(ControlBlockException.class,
                    () -> ControlBlock.awaitCreated(() -> name, TestSupport.SLOT, Duration.ofMillis(100)));
            assertEquals("control block " + name + " was not created within 100 ms (the file is there, 12 bytes,"
                    + " smaller than a header)", e.getMessage());
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * Runs {@code wait} on a thread of its own and returns once that thread is inside the control block's wait for
     * the parent, so that what the test does next happens while it waits.
     */
    private static <T> CompletableFuture<T> waiting(java.util.concurrent.Callable<T> wait) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread waiter = Thread.ofPlatform().daemon().start(() -> {
            try {
                result.complete(wait.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        assertTrue(TestSupport.waitUntil(15_000, () -> result.isDone() || java.util.Arrays.stream(
                waiter.getStackTrace()).anyMatch(f -> f.getClassName().equals(ControlBlockPublication.class.getName())
                        && f.getMethodName().equals("awaitParent"))), "the waiter never began to wait");
        return result;
    }
}
