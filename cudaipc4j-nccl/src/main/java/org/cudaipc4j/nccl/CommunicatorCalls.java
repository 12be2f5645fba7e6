package org.cudaipc4j.nccl;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.nccl.binding.NcclCalls;
import org.cudaipc4j.nccl.binding.NcclFunction;

/**
 * How calls reach NCCL on one {@link Communicator}: one at a time under its lock, each result finished (waited for
 * while NCCL is still taking it, or turned into an abort when it is an error), and aborts asked for from any thread.
 */
final class CommunicatorCalls {
    private final Communicator owner;
    private final Context context;
    private final Nccl nccl;
    private final MemorySegment comm;
    private final Duration timeout;
    /** Held around every call into NCCL on this communicator, so that an abort never overlaps another call. */
    final ReentrantLock lock = new ReentrantLock();
    private volatile String abortRequest;
    private volatile String abortReason;
    /**
     * Set while {@code ncclCommDestroy} runs and once it has freed the communicator: an abort from another thread
     * (which waits for the lock for a second only) must not free it a second time.
     */
    private boolean destroying; // guarded by this

    CommunicatorCalls(Communicator owner, Context context, Nccl nccl, MemorySegment comm, Duration timeout) {
        this.owner = owner;
        this.context = context;
        this.nccl = nccl;
        this.comm = comm;
        this.timeout = timeout;
    }

    /** {@return why it was aborted, or null while it was not} */
    String abortReason() {
        return abortReason;
    }

    /** See {@link Communicator#asyncError()}. */
    int asyncError() {
        lock.lock();
        try {
            requireUsable();
            return CommunicatorInit.asyncError(nccl, comm);
        } finally {
            lock.unlock();
        }
    }

    /** See {@link Communicator#pollError()}. */
    Optional<NcclCallException> pollError() {
        if (!lock.tryLock()) {
            return Optional.empty();
        }
        try {
            if (owner.isClosed() || abortReason != null) {
                return Optional.empty();
            }
            int r = CommunicatorInit.asyncError(nccl, comm);
            if (r == NcclResult.SUCCESS.code() || r == NcclResult.IN_PROGRESS.code()) {
                return Optional.empty();
            }
            NcclCallException failure = nccl.failure(NcclFunction.ncclCommGetAsyncError, r, comm);
            abortLocked("rank " + owner.rank() + ": " + failure.getMessage());
            return Optional.of(failure);
        } finally {
            lock.unlock();
        }
    }

    /** See {@link Communicator#abort(String)}. */
    void abort(String reason) {
        abortRequest = reason;
        boolean locked;
        try {
            locked = lock.tryLock(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        try {
            abortLocked(reason);
        } finally {
            if (locked) {
                lock.unlock();
            }
        }
    }

    /** {@return whether the destroy may begin: no abort came first} From here on no abort runs. */
    synchronized boolean beginDestroy() {
        if (abortReason != null) {
            return false;
        }
        destroying = true;
        return true;
    }

    /** The destroy failed: the communicator is still there, and an abort may free it. */
    synchronized void destroyFailed() {
        destroying = false;
    }

    /**
     * Aborts, once, holding the lock (or having waited for it long enough). Also while the owner closes: a
     * finalise that fails or times out is aborted, which frees the communicator.
     */
    void abortLocked(String reason) {
        synchronized (this) {
            if (abortReason != null || destroying) {
                return;
            }
            abortReason = reason;
        }
        context.makeCurrent();
        nccl.check(NcclFunction.ncclCommAbort, NcclCalls.ncclCommAbort(comm));
    }

    /**
     * Makes {@code call} (a call of {@code function}, its arguments evaluated by the caller) under the lock and
     * finishes its result.
     */
    void enqueue(NcclFunction function, IntSupplier call) {
        lock.lock();
        try {
            requireUsable();
            context.makeCurrent();
            finish(function, call.getAsInt());
        } finally {
            lock.unlock();
        }
    }

    /** Handles a call's result: done, in progress (waits until NCCL has taken it), or an error (aborts). */
    void finish(NcclFunction function, int result) {
        if (result == NcclResult.SUCCESS.code()) {
            return;
        }
        if (result == NcclResult.IN_PROGRESS.code()) {
            waitReady(function);
            return;
        }
        NcclCallException failure = nccl.failure(function, result, comm);
        if (result != NcclResult.INVALID_ARGUMENT.code() && result != NcclResult.INVALID_USAGE.code()) {
            abortLocked("rank " + owner.rank() + ": " + failure.getMessage());
        }
        throw failure;
    }

    /** Polls until NCCL has finished taking a call that returned {@code ncclInProgress}; called under the lock. */
    void waitReady(NcclFunction function) {
        Poll.untilTaken(timeout, new Live(function, function.name()) {
            @Override
            public int state() {
                return CommunicatorInit.asyncError(nccl, comm);
            }
        });
    }

    /** See {@link Communicator#await(Stream, Duration)}. */
    void await(Stream stream, Duration limit) {
        Poll.until(stream::query, limit, new Live(NcclFunction.ncclCommGetAsyncError, "NCCL work") {
            @Override
            public int state() {
                requireUsable();
                return CommunicatorInit.asyncError(nccl, comm);
            }
        });
    }

    /** A wait of a communicator in use: its abort request stops it, and every way it ends aborts the communicator. */
    private abstract class Live implements Poll.Watch {
        private final NcclFunction during;
        private final String what;

        Live(NcclFunction during, String what) {
            this.during = during;
            this.what = what;
        }

        @Override
        public String stopRequest() {
            return abortRequest;
        }

        @Override
        public RuntimeException failed(int state) {
            NcclCallException failure = nccl.failure(during, state, comm);
            abortLocked("rank " + owner.rank() + ": " + failure.getMessage());
            return failure;
        }

        @Override
        public RuntimeException stopped(String reason) {
            abort(reason);
            return new CommunicatorAbortedException(reason);
        }

        @Override
        public RuntimeException late(String limit) {
            String reason = "rank " + owner.rank() + ": " + what + " did not finish within " + limit;
            abort(reason);
            return new CommunicatorAbortedException(reason + "; communicator aborted");
        }

        @Override
        public Lock lock() {
            return lock;
        }
    }

    /** Throws when closed or aborted. */
    void requireUsable() {
        if (owner.isClosed()) {
            throw new IllegalStateException(owner + " is closed");
        }
        String reason = abortReason;
        if (reason != null) {
            throw new CommunicatorAbortedException(reason);
        }
    }
}
