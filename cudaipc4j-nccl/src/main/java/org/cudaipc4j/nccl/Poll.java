package org.cudaipc4j.nccl;

import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.cudaipc4j.coord.Durations;
import org.cudaipc4j.coord.IdleStrategy;

/**
 * The one way a communicator waits on NCCL: a poll with a deadline that also watches NCCL's state and a request to
 * stop, backing off from spinning to yielding to parking. What is awaited and how each failure ends (the abort, the
 * exception and its message) come from a {@link Watch}; the order of the looks and the deadline come from here.
 */
final class Poll {
    private Poll() {
    }

    /** What a wait watches, and how it ends when it does not end well. */
    interface Watch {
        /**
         * {@return NCCL's state: {@code ncclSuccess}, {@code ncclInProgress}, or an error} Read under {@link #lock()}.
         */
        int state();

        /** {@return a reason to give up now, or null} */
        String stopRequest();

        /** Ends the wait on the error {@code state}: aborts what must be aborted, returns what to throw. */
        RuntimeException failed(int state);

        /** Ends the wait on a stop request: aborts what must be aborted, returns what to throw. */
        RuntimeException stopped(String reason);

        /** Ends the wait after the deadline: aborts what must be aborted, returns what to throw. */
        RuntimeException late(String limit);

        /**
         * {@return the lock held while the state is read and an error in it is handled, so that no other call comes
         * between an error and its abort; null for none}
         */
        default Lock lock() {
            return null;
        }
    }

    /**
     * Waits until NCCL's state is {@code ncclSuccess}, looking at the state before the stop request: a communicator
     * whose making finished is kept even when a stop came meanwhile.
     */
    static void untilMade(Duration limit, Watch watch) {
        loop(limit, null, false, watch);
    }

    /** Waits until NCCL's state is {@code ncclSuccess}, honouring a stop request first. */
    static void untilTaken(Duration limit, Watch watch) {
        loop(limit, null, true, watch);
    }

    /**
     * Waits until {@code done} says so, honouring a stop request first; NCCL's state is then watched for errors only
     * ({@code ncclSuccess} means healthy, not done).
     */
    static void until(BooleanSupplier done, Duration limit, Watch watch) {
        loop(limit, done, true, watch);
    }

    private static void loop(Duration limit, BooleanSupplier done, boolean stopFirst, Watch watch) {
        long deadline = System.nanoTime() + limit.toNanos();
        IdleStrategy backoff = IdleStrategy.timed();
        while (true) {
            if (done != null && done.getAsBoolean()) {
                return;
            }
            if (stopFirst) {
                stopIfAsked(watch);
            }
            if (state(watch) == NcclResult.SUCCESS.code() && done == null) {
                return;
            }
            if (!stopFirst) {
                stopIfAsked(watch);
            }
            if (System.nanoTime() - deadline > 0) {
                throw watch.late(Durations.seconds(limit));
            }
            backoff.idle();
        }
    }

    private static void stopIfAsked(Watch watch) {
        String reason = watch.stopRequest();
        if (reason != null) {
            throw watch.stopped(reason);
        }
    }

    /** Reads the state and ends the wait when it is an error; both under the watch's lock. */
    private static int state(Watch watch) {
        Lock lock = watch.lock();
        if (lock != null) {
            lock.lock();
        }
        try {
            int state = watch.state();
            if (state != NcclResult.SUCCESS.code() && state != NcclResult.IN_PROGRESS.code()) {
                throw watch.failed(state);
            }
            return state;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }
}
