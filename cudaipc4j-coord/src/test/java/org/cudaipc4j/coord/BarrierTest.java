package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.cudaipc4j.base.LibcFutex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The barrier with threads standing in for processes (the multi-process runs are in BarrierProcessTest). */
class BarrierTest {
    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    @ParameterizedTest(name = "futex {0}")
    @ValueSource(booleans = {true, false})
    void noThreadLeavesARoundEarly(boolean futex) throws Exception {
        int n = 4;
        int rounds = 3000;
        try (ControlBlock block = ControlBlock.create(n, TestSupport.SLOT)) {
            AtomicLong violations = new AtomicLong();
            List<CompletableFuture<Long>> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                all.add(CompletableFuture.supplyAsync(() -> {
                    Barrier barrier = new Barrier(block, index, Duration.ofSeconds(30), futex);
                    for (long r = 1; r <= rounds; r++) {
                        TestSupport.setRound(block, index, r);
                        barrier.await();
                        for (int p = 0; p < n; p++) {
                            long seen = TestSupport.round(block, p);
                            if (seen < r || seen > r + 1) {
                                violations.incrementAndGet();
                            }
                        }
                    }
                    return barrier.round();
                }, r -> Thread.ofPlatform().start(r)));
            }
            for (CompletableFuture<Long> f : all) {
                assertEquals(rounds, f.get(60, TimeUnit.SECONDS));
            }
            assertEquals(0, violations.get());
            assertTrue(block.abortState().isEmpty());
        }
    }

    @Test
    void singleProcessBarrierNeverWaits() {
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT)) {
            Barrier b = block.barrier(0, Duration.ofMillis(100));
            for (int i = 0; i < 1000; i++) {
                b.await();
            }
            assertEquals(1000, b.round());
        }
    }

    @Test
    void timeoutNamesTheRoundAndAbortsTheGroup() {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            Barrier b = block.barrier(0, Duration.ofMillis(200));
            long t0 = System.nanoTime();
            BarrierException e = assertThrows(BarrierException.class, b::await);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("barrier timed out after 200 ms in round 0 (process 0)", e.getMessage());
            assertTrue(ms >= 200 && ms < 15_000, ms + " ms");
            assertEquals(new ControlBlock.Abort(0, e.getMessage()), block.abortState().orElseThrow());
        }
    }

    @ParameterizedTest(name = "futex {0}")
    @ValueSource(booleans = {true, false})
    void abortWakesWaitersWithTheAbortersReason(boolean futex) throws Exception {
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT)) {
            List<CompletableFuture<Void>> waiters = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Barrier b = new Barrier(block, i, Duration.ofSeconds(30), futex);
                CompletableFuture<Void> waiter = new CompletableFuture<>();
                waiters.add(waiter);
                threads.add(Thread.ofPlatform().name("barrier-wait-" + i).daemon().start(() -> {
                    try {
                        b.await();
                        waiter.complete(null);
                    } catch (Throwable t) {
                        waiter.completeExceptionally(t);
                    }
                }));
            }
            // Aborted only once both sleep in their wait, so that the abort has to wake them.
            for (Thread t : threads) {
                assertTrue(TestSupport.waitUntil(15_000, () -> asleepInTheBarrier(t, futex)),
                        t.getName() + " never slept");
            }
            long t0 = System.nanoTime();
            block.abort(2, "device lost");
            for (CompletableFuture<Void> w : waiters) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(15, TimeUnit.SECONDS));
                assertEquals(BarrierException.class, e.getCause().getClass());
                assertEquals("barrier aborted by process 2: device lost", e.getCause().getMessage());
            }
            assertTrue(System.nanoTime() - t0 < 15_000_000_000L);
            BarrierException e = assertThrows(BarrierException.class,
                    () -> block.barrier(2, Duration.ofSeconds(1)).await());
            assertEquals("barrier aborted by process 2: device lost", e.getMessage());
        }
    }

    @Test
    void deadParticipantIsNamedLongBeforeTheTimeout() throws Exception {
        long dead = SharedSegmentTest.deadPid();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            block.setPid(1, dead);
            Barrier b = block.barrier(0, Duration.ofSeconds(30));
            long t0 = System.nanoTime();
            BarrierException e = assertThrows(BarrierException.class, b::await);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("process 1 (pid " + dead + ") died while process 0 waited in barrier round 0", e.getMessage());
            assertTrue(ms < 15_000, ms + " ms");
            assertEquals(0, block.abortState().orElseThrow().process());
        }
    }

    @Test
    void awaitConditionReturnsWhenItHoldsAndGivesUpLikeTheBarrier() throws Exception {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            Barrier b = block.barrier(0, Duration.ofSeconds(30));
            long until = System.nanoTime() + 50_000_000L;
            b.awaitCondition(() -> System.nanoTime() - until >= 0, "the device to catch up");
            assertTrue(block.abortState().isEmpty());
        }
        long dead = SharedSegmentTest.deadPid();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            block.setPid(1, dead);
            BarrierException e = assertThrows(BarrierException.class,
                    () -> block.barrier(0, Duration.ofSeconds(30)).awaitCondition(() -> false, "the device to catch up"));
            assertEquals("process 1 (pid " + dead + ") died while process 0 waited for the device to catch up",
                    e.getMessage());
            assertEquals(0, block.abortState().orElseThrow().process());
        }
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            block.abort(1, "kernel failed");
            BarrierException e = assertThrows(BarrierException.class,
                    () -> block.barrier(0, Duration.ofSeconds(30)).awaitCondition(() -> false, "the device to catch up"));
            assertEquals("waiting for the device to catch up: aborted by process 1: kernel failed", e.getMessage());
        }
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT)) {
            BarrierException e = assertThrows(BarrierException.class,
                    () -> block.barrier(0, Duration.ofMillis(200)).awaitCondition(() -> false, "the device"));
            assertEquals("process 0 timed out after 200 ms waiting for the device", e.getMessage());
        }
    }

    @Test
    void participantThatFinishedAndLeftIsReportedAsExited() throws Exception {
        long dead = SharedSegmentTest.deadPid();
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            block.setPid(1, dead);
            block.setStatus(1, ProcessStatus.DONE);
            BarrierException e = assertThrows(BarrierException.class,
                    () -> block.barrier(0, Duration.ofSeconds(30)).await());
            assertEquals("process 1 (pid " + dead + ") exited while process 0 waited in barrier round 0", e.getMessage());
        }
    }

    /**
     * The abort itself wakes the waiters asleep on the futex, not their own checks: with those 10 s apart, every
     * waiter still leaves within 200 ms of the abort.
     */
    @Test
    void theAbortWakesSleepingWaitersAtOnce() throws Exception {
        assumeTrue(LibcFutex.hasFutex(), "no futex on this platform: waiters park briefly instead of sleeping");
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT)) {
            List<CompletableFuture<Long>> left = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Barrier b = new Barrier(block, i, Duration.ofSeconds(60), true, Duration.ofSeconds(10));
                CompletableFuture<Long> leftAt = new CompletableFuture<>();
                left.add(leftAt);
                threads.add(Thread.ofPlatform().name("barrier-sleeper-" + i).daemon().start(() -> {
                    try {
                        b.await();
                        leftAt.completeExceptionally(new AssertionError("the wait passed with a process missing"));
                    } catch (BarrierException e) {
                        leftAt.complete(System.nanoTime());
                    }
                }));
            }
            for (Thread t : threads) {
                assertTrue(TestSupport.waitUntil(15_000, () -> asleepInTheBarrier(t, true)), t.getName()
                        + " never slept");
            }
            long abortedAt = System.nanoTime();
            block.abort(2, "device lost");
            for (CompletableFuture<Long> leftAt : left) {
                long ms = (leftAt.get(30, TimeUnit.SECONDS) - abortedAt) / 1_000_000;
                assertTrue(ms < 200, "a waiter left " + ms + " ms after the abort");
            }
        }
    }

    /**
     * A parent that heartbeats and then goes silent (stopped) ends the wait after the silence limit, the
     * barrier's message naming it, and the group is aborted by the waiter.
     */
    @Test
    void aSilentParentEndsTheWaitNamingIt() {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            block.parentHeartbeat(); // once, then never again
            Barrier b = new Barrier(block, 0, Duration.ofSeconds(60), LibcFutex.hasFutex());
            long t0 = System.nanoTime();
            BarrierException e = assertThrows(BarrierException.class, b::await);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            String limit = Durations.seconds(Liveness.silenceLimit());
            assertTrue(e.getMessage().matches("the parent \\(pid " + ProcessHandle.current().pid() + "\\) stopped"
                    + " responding for [0-9.]+ s while process 0 waited in barrier round 0"), e.getMessage());
            assertTrue(ms >= Liveness.silenceLimit().toMillis(), "left after " + ms + " ms, before the limit " + limit);
            assertEquals(new ControlBlock.Abort(0, e.getMessage()), block.abortState().orElseThrow());
        }
    }

    /**
     * A long wait sleeps in the kernel, on the barrier's futex or parked, instead of spinning on a core: the waiting
     * thread is seen asleep in the blocking call while it waits, and wakes for the abort. No CPU-time bound: what a
     * wait costs depends on the machine's load, and is a measurement, not a pass/fail check.
     */
    @ParameterizedTest(name = "futex {0}")
    @ValueSource(booleans = {true, false})
    void longWaitsSleepInsteadOfSpinning(boolean futex) throws Exception {
        try (ControlBlock block = ControlBlock.create(2, TestSupport.SLOT)) {
            Barrier b = new Barrier(block, 0, Duration.ofSeconds(30), futex);
            CompletableFuture<String> ended = new CompletableFuture<>();
            Thread waiter = Thread.ofPlatform().name("barrier-sleeper").daemon().start(() -> {
                try {
                    b.await();
                    ended.complete("passed");
                } catch (BarrierException e) {
                    ended.complete(e.getMessage());
                }
            });
            assertTrue(TestSupport.waitUntil(15_000, () -> asleepInTheBarrier(waiter, futex)),
                    "the waiter never slept in " + (futex ? "the futex" : "a park") + ": "
                            + ThreadStates.kernelState(waiter.getName()) + " "
                            + Arrays.toString(waiter.getStackTrace()));
            assertFalse(ended.isDone(), "the wait ended with a process missing");
            block.abort(1, "stop");
            assertEquals("barrier aborted by process 1: stop", ended.get(15, TimeUnit.SECONDS));
            waiter.join();
        }
    }

    /** Whether {@code waiter} sleeps in the kernel in the blocking call of its wait. */
    private static boolean asleepInTheBarrier(Thread waiter, boolean futex) {
        return futex ? ThreadStates.asleepIn(waiter, LibcFutex.class.getName(), "futexWait")
                : ThreadStates.asleepIn(waiter, java.util.concurrent.locks.LockSupport.class.getName(), "parkNanos");
    }

    @Test
    void futexIsAvailableOnLinux() {
        assertTrue(LibcFutex.hasFutex() || !System.getProperty("os.name").equals("Linux"),
                "Linux on " + System.getProperty("os.arch") + " should block on a futex");
    }
}
