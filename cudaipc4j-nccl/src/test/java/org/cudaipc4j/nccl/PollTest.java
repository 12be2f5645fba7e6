package org.cudaipc4j.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** The communicator's one poll, without NCCL: a fake state source stands in for {@code ncclCommGetAsyncError}. */
class PollTest {
    private static final int SUCCESS = NcclResult.SUCCESS.code();
    private static final int IN_PROGRESS = NcclResult.IN_PROGRESS.code();
    private static final int SYSTEM_ERROR = 2;
    private static final Duration LONG = Duration.ofMinutes(5);

    /** Records what the poll asked, in order, and ends each way with its own exception. */
    private static final class Fake implements Poll.Watch {
        final List<String> events = new ArrayList<>();
        final IntSupplier states;
        String stop;
        Lock lock;
        boolean lockHeldDuringState;
        boolean lockHeldDuringFailure;

        Fake(IntSupplier states) {
            this.states = states;
        }

        @Override
        public int state() {
            events.add("state");
            lockHeldDuringState = lock instanceof ReentrantLock r && r.isHeldByCurrentThread();
            return states.getAsInt();
        }

        @Override
        public String stopRequest() {
            events.add("stop");
            return stop;
        }

        @Override
        public RuntimeException failed(int state) {
            events.add("failed " + state);
            lockHeldDuringFailure = lock instanceof ReentrantLock r && r.isHeldByCurrentThread();
            return new IllegalStateException("failed " + state);
        }

        @Override
        public RuntimeException stopped(String reason) {
            events.add("stopped");
            return new CommunicatorAbortedException(reason);
        }

        @Override
        public RuntimeException late(String limit) {
            events.add("late");
            return new CommunicatorAbortedException("late after " + limit);
        }

        @Override
        public Lock lock() {
            return lock;
        }

        long count(String event) {
            return events.stream().filter(event::equals).count();
        }
    }

    private static IntSupplier inProgressThen(int rounds, int last) {
        int[] n = {0};
        return () -> n[0]++ < rounds ? IN_PROGRESS : last;
    }

    @Test
    void returnsOnceTheStateIsSuccess() {
        for (boolean made : new boolean[] {true, false}) {
            Fake fake = new Fake(inProgressThen(500, SUCCESS));
            if (made) {
                Poll.untilMade(LONG, fake);
            } else {
                Poll.untilTaken(LONG, fake);
            }
            assertEquals(501, fake.count("state"));
            assertFalse(fake.events.contains("late"));
        }
    }

    @Test
    void anAsyncErrorEndsTheWaitWithWhatTheWatchReturns() {
        ReentrantLock lock = new ReentrantLock();
        Fake fake = new Fake(inProgressThen(3, SYSTEM_ERROR));
        fake.lock = lock;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Poll.untilTaken(LONG, fake));
        assertEquals("failed " + SYSTEM_ERROR, e.getMessage());
        assertEquals(4, fake.count("state"));
        assertTrue(fake.lockHeldDuringState, "the state is read under the watch's lock");
        assertTrue(fake.lockHeldDuringFailure, "an error is handled before the lock is let go");
        assertFalse(lock.isLocked());
    }

    @Test
    void theDeadlineEndsAWaitThatNeverFinishes() {
        Duration limit = Duration.ofMillis(40);
        Fake fake = new Fake(() -> IN_PROGRESS);
        long start = System.nanoTime();
        CommunicatorAbortedException e = assertThrows(CommunicatorAbortedException.class,
                () -> Poll.untilTaken(limit, fake));
        long waited = System.nanoTime() - start;
        assertEquals("late after 0.0 s", e.getMessage());
        assertTrue(waited >= limit.toNanos(), "gave up after " + waited + " ns");
        assertTrue(fake.count("state") > 1, "polled more than once");
        assertEquals(List.of("late"), fake.events.subList(fake.events.size() - 1, fake.events.size()));
    }

    @Test
    void aCommunicatorBeingMadeLooksAtItsStateBeforeAStop() {
        Fake made = new Fake(() -> SUCCESS);
        made.stop = "peer 1 died";
        Poll.untilMade(LONG, made);
        assertEquals(List.of("state"), made.events);

        Fake failing = new Fake(() -> SYSTEM_ERROR);
        failing.stop = "peer 1 died";
        assertThrows(IllegalStateException.class, () -> Poll.untilMade(LONG, failing));
        assertEquals(List.of("state", "failed " + SYSTEM_ERROR), failing.events);

        Fake stopped = new Fake(() -> IN_PROGRESS);
        stopped.stop = "peer 1 died";
        CommunicatorAbortedException e = assertThrows(CommunicatorAbortedException.class,
                () -> Poll.untilMade(LONG, stopped));
        assertEquals("peer 1 died", e.getMessage());
        assertEquals(List.of("state", "stop", "stopped"), stopped.events);
    }

    @Test
    void aCommunicatorInUseHonoursAnAbortRequestFirst() {
        Fake fake = new Fake(() -> SUCCESS);
        fake.stop = "aborted by rank 0";
        CommunicatorAbortedException e = assertThrows(CommunicatorAbortedException.class,
                () -> Poll.untilTaken(LONG, fake));
        assertEquals("aborted by rank 0", e.getMessage());
        assertEquals(List.of("stop", "stopped"), fake.events);
    }

    @Test
    void waitingForWorkEndsWhenItIsDoneAndWatchesTheStateForErrorsOnly() {
        int[] queries = {0};
        Fake healthy = new Fake(() -> SUCCESS);
        Poll.until(() -> ++queries[0] > 300, LONG, healthy);
        assertEquals(301, queries[0]);
        assertEquals(300, healthy.count("state"), "success means healthy, not done");
        assertEquals(300, healthy.count("stop"));

        Fake failing = new Fake(inProgressThen(2, SYSTEM_ERROR));
        RuntimeException e = assertThrows(IllegalStateException.class, () -> Poll.until(() -> false, LONG, failing));
        assertEquals(List.of("stop", "state", "stop", "state", "stop", "state", "failed " + SYSTEM_ERROR),
                failing.events);
        assertSame(IllegalStateException.class, e.getClass());

        Fake done = new Fake(() -> SYSTEM_ERROR);
        Poll.until(() -> true, LONG, done);
        assertEquals(List.of(), done.events, "finished work is not looked at again");
    }

    @Test
    void aStateSourceThatThrowsEndsTheWaitAndLetsTheLockGo() {
        ReentrantLock lock = new ReentrantLock();
        Fake fake = new Fake(() -> {
            throw new IllegalStateException("closed");
        });
        fake.lock = lock;
        assertThrows(IllegalStateException.class, () -> Poll.until(() -> false, LONG, fake));
        assertFalse(lock.isLocked());
    }
}
