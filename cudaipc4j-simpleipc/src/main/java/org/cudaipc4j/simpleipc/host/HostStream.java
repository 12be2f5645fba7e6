package org.cudaipc4j.simpleipc.host;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.simpleipc.backend.BackendException;

/**
 * A simulated stream: one platform worker thread running tasks in the order they were enqueued.
 *
 * <p>Errors are sticky, as in CUDA: after a task throws, later tasks are skipped and every call on the stream
 * fails with that error as its cause. Closing lets queued work finish, except that a wait in progress (or queued)
 * ends at once and the tasks behind it are dropped, so closing never hangs on a sibling that will not record.
 */
final class HostStream {

    /** Work executed on the worker thread. */
    interface Task {
        void run() throws Exception;
    }

    private record Marker(CountDownLatch reached) implements Task {
        @Override
        public void run() {}
    }

    private static final Task STOP = () -> {};

    private final String name;
    private final Object lock = new Object();
    private final LinkedBlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private volatile boolean closed;
    private volatile boolean dropping;
    private volatile Throwable failure;
    private volatile boolean failureReported;

    HostStream(String name) {
        this.name = name;
        this.worker = Thread.ofPlatform().name(name).daemon().start(this::runLoop);
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Enqueues the task that {@code factory} makes; the factory runs under the stream's lock after the checks, so
     * side effects there (an event ticket) happen only when the task is really queued.
     */
    void enqueue(String what, Supplier<Task> factory) {
        synchronized (lock) {
            checkUsable(what);
            queue.add(factory.get());
        }
    }

    /** Whether a task failed, reported or not (for tests that must wait for a failure without reporting it). */
    boolean hasFailed() {
        return failure != null;
    }

    /** Fails when the stream is closed or an earlier task failed. */
    void checkUsable(String what) {
        if (closed) {
            throw new BackendException(what + " failed: stream " + name + " is closed");
        }
        Throwable f = failure;
        if (f != null) {
            failureReported = true;
            throw new BackendException(what + " failed: an earlier task on stream " + name + " failed: "
                    + f.getMessage(), f);
        }
    }

    /**
     * Waits until every task enqueued before this call has run.
     *
     * @throws BackendException on timeout, or when a task failed
     */
    void synchronize(String what, long timeoutNanos) {
        checkUsable(what);
        if (!drain(what, timeoutNanos)) {
            throw new BackendException(what + " timed out after " + HostBackend.seconds(timeoutNanos)
                    + " waiting for stream " + name);
        }
        checkUsable(what);
    }

    /**
     * Waits until no task enqueued before this call can still run; reports no task failure (a failed or closed
     * stream runs nothing more). Returns false on timeout.
     */
    boolean drain(String what, long timeoutNanos) {
        CountDownLatch reached = new CountDownLatch(1);
        synchronized (lock) {
            if (closed || failure != null) {
                return true;
            }
            queue.add(new Marker(reached));
        }
        Deadline deadline = HostBackend.deadline(timeoutNanos);
        try {
            // A slice at a time: a wait that blocked for all that is left would be taken for a pause (Deadline).
            while (!reached.await(deadline.nextWait().toNanos(), TimeUnit.NANOSECONDS)) {
                if (deadline.hasPassed()) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException(what + " was interrupted waiting for stream " + name, e);
        }
    }

    private void runLoop() {
        while (true) {
            Task task;
            try {
                task = queue.take();
            } catch (InterruptedException e) {
                continue; // nothing interrupts the worker on purpose; keep serving the queue
            }
            if (task == STOP) {
                return;
            }
            if (task instanceof Marker m) {
                m.reached.countDown();
                continue;
            }
            if (dropping || failure != null) {
                continue;
            }
            try {
                task.run();
            } catch (EventSegment.StreamClosedException e) {
                dropping = true;
            } catch (Throwable e) {
                failure = e;
            }
        }
    }

    /**
     * Stops accepting work and waits (up to {@code timeoutNanos}) for the worker to end.
     *
     * @throws BackendException if the worker did not end, or if a task failed and no call has reported it yet
     */
    void close(long timeoutNanos) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            queue.add(STOP);
        }
        try {
            worker.join(TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("closing stream " + name + " was interrupted", e);
        }
        if (worker.isAlive()) {
            throw new BackendException("stream " + name + " did not finish its work within "
                    + HostBackend.seconds(timeoutNanos));
        }
        Throwable f = failure;
        if (f != null && !failureReported) {
            failureReported = true;
            throw new BackendException("a task on stream " + name + " failed: " + f.getMessage(), f);
        }
    }
}
