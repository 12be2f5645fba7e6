package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ForeignResource;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.nccl.binding.NcclCalls;
import org.cudaipc4j.nccl.binding.NcclFunction;

/**
 * An NCCL communicator ({@code ncclComm_t}) of one rank, owned by the device's primary {@link Context} (NCCL's own
 * threads bind the primary context). Non-blocking unless its options say otherwise: no call waits inside NCCL, every
 * wait is a poll with a deadline that also watches the communicator's asynchronous error and an abort request, so a
 * dead or hung peer ends the wait instead of hanging the rank (see {@link Watchdog}, {@link CommunicatorOptions}).
 *
 * <p>Collectives take {@link DeviceMemory} (a buffer, an IPC mapping, or a {@link DeviceMemory#slice slice}) whose
 * length is a whole number of elements of the given {@link DataType}, and enqueue on a {@link Stream} of the same
 * context; {@link #await(Stream)} waits for them. Calls make the context current on the calling thread. One thread
 * at a time should enqueue; {@link #abort(String)} and {@link #close()} may come from any thread.
 */
public final class Communicator extends ForeignResource {
    /** {@code NCCL_SPLIT_NOCOLOR}: the color of a rank that joins no communicator of a split. */
    public static final int NO_COLOR = -1;

    private final Context context;
    private final Nccl nccl;
    private final MemorySegment comm;
    /** Holds the config strings for the communicator's life. */
    private final Arena arena;
    private final int rank;
    private final int size;
    private final Duration timeout;
    /** Serialises the calls into NCCL, finishes their results, and aborts. */
    private final CommunicatorCalls calls;
    private final List<BufferRegistration> registrations = new ArrayList<>();

    Communicator(Context context, Nccl nccl, MemorySegment comm, Arena arena, int rank, int size, Duration timeout) {
        super(context);
        this.context = context;
        this.nccl = nccl;
        this.comm = comm;
        this.arena = arena;
        this.rank = rank;
        this.size = size;
        this.timeout = timeout;
        this.calls = new CommunicatorCalls(this, context, nccl, comm, timeout);
    }

    /**
     * Joins the communicator of {@code size} ranks that {@code id} names, as {@code rank}
     * ({@code ncclCommInitRankConfig}); returns once every rank has joined.
     *
     * @param context the context whose device the communicator runs on
     * @param nccl the loaded NCCL
     * @param id the communicator's id, the same on every rank
     * @param rank this rank, 0 to {@code size - 1}
     * @param size the number of ranks
     * @param options the communicator's options
     * @return the communicator, owned by the caller
     * @throws CommunicatorAbortedException when the ranks do not all join within the options' timeout
     * @throws NcclCallException when NCCL refuses (a rank of another NCCL version, say)
     */
    public static Communicator create(Context context, Nccl nccl, UniqueId id, int rank, int size,
                                      CommunicatorOptions options) {
        return create(context, nccl, id, rank, size, options, Optional::empty);
    }

    /**
     * As {@link #create(Context, Nccl, UniqueId, int, int, CommunicatorOptions)}, giving up early (aborting what
     * NCCL made so far) once {@code stop} returns a reason, such as a peer's fault that the rendezvous saw: a rank
     * that died while the others joined would otherwise keep them waiting for the whole timeout.
     *
     * @param context the context whose device the communicator runs on
     * @param nccl the loaded NCCL
     * @param id the communicator's id, the same on every rank
     * @param rank this rank, 0 to {@code size - 1}
     * @param size the number of ranks
     * @param options the communicator's options
     * @param stop polled while the ranks join: a reason to give up, or empty
     * @return the communicator, owned by the caller
     * @throws CommunicatorAbortedException with the reason when {@code stop} gave one
     */
    public static Communicator create(Context context, Nccl nccl, UniqueId id, int rank, int size,
                                      CommunicatorOptions options, Supplier<Optional<String>> stop) {
        return CommunicatorInit.create(context, nccl, id, rank, size, options, stop);
    }

    /** {@return this rank} */
    public int rank() {
        return rank;
    }

    /** {@return the number of ranks} */
    public int size() {
        return size;
    }

    /** {@return the NCCL this communicator runs on} */
    public Nccl nccl() {
        return nccl;
    }

    /**
     * Splits this communicator ({@code ncclCommSplit}): ranks that pass the same {@code color} form a new
     * communicator, ordered by {@code key}; a rank that passes {@link #NO_COLOR} gets none. Every rank of this
     * communicator must call it.
     *
     * @param color the new communicator's color, or {@link #NO_COLOR}
     * @param key this rank's place in the new communicator
     * @param options the new communicator's options
     * @return the new communicator, owned by the caller; empty for {@link #NO_COLOR}
     */
    public Optional<Communicator> split(int color, int key, CommunicatorOptions options) {
        if (color < NO_COLOR) {
            throw new IllegalArgumentException("a split color is " + NO_COLOR + " or at least 0, got " + color);
        }
        Arena childArena = Arena.ofShared();
        try {
            MemorySegment config = CommunicatorInit.config(childArena, options);
            MemorySegment out = childArena.allocate(ADDRESS);
            int r;
            calls.lock.lock();
            try {
                calls.requireUsable();
                context.makeCurrent();
                r = NcclCalls.ncclCommSplit(comm, color, key, out, config);
                if (r != NcclResult.SUCCESS.code() && r != NcclResult.IN_PROGRESS.code()) {
                    throw nccl.failure(NcclFunction.ncclCommSplit, r, comm);
                }
                // NCCL writes the new communicator only once the split is complete, which the parent reports.
                calls.waitReady(NcclFunction.ncclCommSplit);
            } finally {
                calls.lock.unlock();
            }
            MemorySegment child = out.get(ADDRESS, 0);
            if (child.equals(MemorySegment.NULL)) {
                childArena.close();
                return Optional.empty();
            }
            return Optional.of(CommunicatorInit.adopt(context, nccl, child, childArena, options.timeout(),
                    NcclFunction.ncclCommSplit, NcclResult.SUCCESS.code(), "color " + color + " key " + key,
                    Optional::empty));
        } catch (RuntimeException e) {
            childArena.close();
            throw e;
        }
    }

    /**
     * Enqueues sending all of {@code buffer} to {@code peer} ({@code ncclSend}).
     *
     * @param buffer what to send
     * @param type its element type
     * @param peer the receiving rank
     * @param stream the stream to enqueue on
     */
    public void send(DeviceMemory buffer, DataType type, int peer, Stream stream) {
        MemorySegment data = ptr(buffer);
        long count = count(buffer, type);
        int to = peer(peer);
        MemorySegment queue = stream.handle();
        calls.enqueue(NcclFunction.ncclSend, () -> NcclCalls.ncclSend(data, count, type.code(), to, comm, queue));
    }

    /**
     * Enqueues receiving into all of {@code buffer} from {@code peer} ({@code ncclRecv}).
     *
     * @param buffer where to receive
     * @param type its element type
     * @param peer the sending rank
     * @param stream the stream to enqueue on
     */
    public void recv(DeviceMemory buffer, DataType type, int peer, Stream stream) {
        MemorySegment data = ptr(buffer);
        long count = count(buffer, type);
        int from = peer(peer);
        MemorySegment queue = stream.handle();
        calls.enqueue(NcclFunction.ncclRecv, () -> NcclCalls.ncclRecv(data, count, type.code(), from, comm, queue));
    }

    /**
     * Enqueues copying {@code root}'s {@code send} into every rank's {@code recv} ({@code ncclBroadcast}); only the
     * root's {@code send} is read, and it may be the same memory as its {@code recv}.
     *
     * @param send the root's data
     * @param recv where every rank receives it
     * @param type the element type
     * @param root the rank that sends
     * @param stream the stream to enqueue on
     */
    public void broadcast(DeviceMemory send, DeviceMemory recv, DataType type, int root, Stream stream) {
        long count = count(recv, type);
        requireCount(send, type, count, "send");
        MemorySegment from = ptr(send);
        MemorySegment to = ptr(recv);
        int sender = peer(root);
        MemorySegment queue = stream.handle();
        calls.enqueue(NcclFunction.ncclBroadcast,
                () -> NcclCalls.ncclBroadcast(from, to, count, type.code(), sender, comm, queue));
    }

    /**
     * Enqueues the in-place broadcast of {@code root}'s {@code buffer} to every rank's.
     *
     * @param buffer the root's data, and where every other rank receives it
     * @param type the element type
     * @param root the rank that sends
     * @param stream the stream to enqueue on
     */
    public void broadcast(DeviceMemory buffer, DataType type, int root, Stream stream) {
        broadcast(buffer, buffer, type, root, stream);
    }

    /**
     * Enqueues reducing every rank's {@code send} with {@code op} into every rank's {@code recv} ({@code
     * ncclAllReduce}).
     *
     * @param send this rank's data
     * @param recv where the result lands
     * @param type the element type
     * @param op the reduction
     * @param stream the stream to enqueue on
     */
    public void allReduce(DeviceMemory send, DeviceMemory recv, DataType type, ReduceOp op, Stream stream) {
        long count = count(recv, type);
        requireCount(send, type, count, "send");
        MemorySegment from = ptr(send);
        MemorySegment to = ptr(recv);
        int reduction = op.code();
        MemorySegment queue = stream.handle();
        calls.enqueue(NcclFunction.ncclAllReduce,
                () -> NcclCalls.ncclAllReduce(from, to, count, type.code(), reduction, comm, queue));
    }

    /**
     * Enqueues gathering every rank's {@code send} into every rank's {@code recv}, in rank order
     * ({@code ncclAllGather}); {@code recv} is {@link #size()} times {@code send}.
     *
     * @param send this rank's data
     * @param recv where every rank's data lands
     * @param type the element type
     * @param stream the stream to enqueue on
     */
    public void allGather(DeviceMemory send, DeviceMemory recv, DataType type, Stream stream) {
        long count = count(send, type);
        requireCount(recv, type, count * size(), "recv");
        MemorySegment from = ptr(send);
        MemorySegment to = ptr(recv);
        MemorySegment queue = stream.handle();
        calls.enqueue(NcclFunction.ncclAllGather,
                () -> NcclCalls.ncclAllGather(from, to, count, type.code(), comm, queue));
    }

    /**
     * Enqueues reducing every rank's {@code send} with {@code op} and leaving block {@code rank} of the result in
     * this rank's {@code recv} ({@code ncclReduceScatter}); {@code send} is {@link #size()} times {@code recv}.
     *
     * @param send this rank's data
     * @param recv where this rank's block of the result lands
     * @param type the element type
     * @param op the reduction
     * @param stream the stream to enqueue on
     */
    public void reduceScatter(DeviceMemory send, DeviceMemory recv, DataType type, ReduceOp op, Stream stream) {
        long count = count(recv, type);
        requireCount(send, type, count * size(), "send");
        MemorySegment from = ptr(send);
        MemorySegment to = ptr(recv);
        int reduction = op.code();
        MemorySegment queue = stream.handle();
        calls.enqueue(NcclFunction.ncclReduceScatter,
                () -> NcclCalls.ncclReduceScatter(from, to, count, type.code(), reduction, comm, queue));
    }

    /**
     * Runs {@code calls} as one NCCL group ({@code ncclGroupStart} ... {@code ncclGroupEnd}), so that their sends and
     * receives progress together; the calls must be on this communicator. Returns once NCCL has accepted the group.
     *
     * @param calls the calls to group
     */
    public void group(Runnable calls) {
        CommunicatorCalls guard = this.calls;
        guard.lock.lock();
        try {
            guard.requireUsable();
            context.makeCurrent();
            nccl.check(NcclFunction.ncclGroupStart, NcclCalls.ncclGroupStart());
            int r;
            try {
                calls.run();
            } finally {
                r = NcclCalls.ncclGroupEnd();
            }
            guard.finish(NcclFunction.ncclGroupEnd, r);
        } finally {
            guard.lock.unlock();
        }
    }

    /**
     * Registers {@code memory} with this communicator ({@code ncclCommRegister}). Close the registration (or the
     * communicator) before the memory.
     *
     * @param memory the memory to register
     * @return the registration, owned by the caller
     */
    public BufferRegistration register(DeviceMemory memory) {
        calls.lock.lock();
        try {
            calls.requireUsable();
            context.makeCurrent();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(ADDRESS);
                int r = NcclCalls.ncclCommRegister(comm, ptr(memory), memory.bytes(), out);
                calls.finish(NcclFunction.ncclCommRegister, r);
                BufferRegistration registration = new BufferRegistration(this, memory, out.get(ADDRESS, 0));
                synchronized (registrations) {
                    registrations.add(registration);
                }
                return registration;
            }
        } finally {
            calls.lock.unlock();
        }
    }

    void deregister(BufferRegistration registration) {
        synchronized (registrations) {
            if (!registrations.remove(registration)) {
                return;
            }
        }
        calls.lock.lock();
        try {
            if (calls.abortReason() != null || isClosed()) {
                return; // an aborted communicator took its registrations with it
            }
            context.makeCurrent();
            int r = NcclCalls.ncclCommDeregister(comm, registration.handle());
            calls.finish(NcclFunction.ncclCommDeregister, r);
        } finally {
            calls.lock.unlock();
        }
    }

    /**
     * Waits until the work enqueued on {@code stream} has finished, polling the stream and this communicator's
     * asynchronous error, for at most the communicator's timeout.
     *
     * @param stream the stream whose work to wait for
     * @throws CommunicatorAbortedException when an abort was requested meanwhile, or the timeout passed (the
     *     communicator is then aborted)
     * @throws NcclCallException when NCCL reports an error (the communicator is then aborted)
     */
    public void await(Stream stream) {
        await(stream, timeout);
    }

    /**
     * As {@link #await(Stream)}, with its own {@code limit}.
     *
     * @param stream the stream whose work to wait for
     * @param limit the longest wait
     */
    public void await(Stream stream, Duration limit) {
        calls.await(stream, limit);
    }

    /**
     * {@return this communicator's asynchronous error ({@code ncclCommGetAsyncError}): {@code 0} while healthy, {@code
     * 7} ({@code ncclInProgress}) while an operation is still being set up, else the error}
     */
    public int asyncError() {
        return calls.asyncError();
    }

    /**
     * Polls the asynchronous error without waiting for another thread's call: empty when healthy, busy, or
     * closed; else an error that was found, after which the communicator is aborted. For {@link Watchdog}.
     */
    Optional<NcclCallException> pollError() {
        return calls.pollError();
    }

    /**
     * Aborts the communicator ({@code ncclCommAbort}), ending the work of every call and kernel in flight on it;
     * calls waiting on it throw {@link CommunicatorAbortedException} with {@code reason}. Waits for another thread's
     * call in progress for at most a second, then aborts anyway: a rank must be able to end. Idempotent.
     *
     * @param reason why, for the exceptions of waiting calls
     */
    public void abort(String reason) {
        calls.abort(reason);
    }

    /** {@return why it was aborted, or empty while it was not} */
    public Optional<String> abortReason() {
        return Optional.ofNullable(calls.abortReason());
    }

    /**
     * Deregisters what is still registered, then finalises ({@code ncclCommFinalize}, waiting for NCCL's pending
     * work for at most the timeout) and destroys it ({@code ncclCommDestroy}); an aborted communicator is already
     * gone, and one that cannot finalise in time is aborted instead.
     */
    @Override
    protected void releaseResource() {
        try {
            List<BufferRegistration> left;
            synchronized (registrations) {
                left = new ArrayList<>(registrations.reversed());
            }
            for (BufferRegistration registration : left) {
                registration.close();
            }
            calls.lock.lock();
            try {
                if (calls.abortReason() != null) {
                    return;
                }
                context.makeCurrent();
                try {
                    calls.finish(NcclFunction.ncclCommFinalize, NcclCalls.ncclCommFinalize(comm));
                    if (calls.beginDestroy()) {
                        try {
                            nccl.check(NcclFunction.ncclCommDestroy, NcclCalls.ncclCommDestroy(comm));
                        } catch (RuntimeException e) {
                            calls.destroyFailed();
                            throw e;
                        }
                    }
                } catch (RuntimeException e) {
                    // not finalised or not destroyed: the communicator is still there, and an abort frees it
                    Closing.closeAfter(() -> calls.abortLocked("rank " + rank() + ": " + e.getMessage()), e);
                    throw e;
                }
            } finally {
                calls.lock.unlock();
            }
        } finally {
            arena.close();
        }
    }

    private static MemorySegment ptr(DeviceMemory memory) {
        return MemorySegment.ofAddress(memory.address());
    }

    private static long count(DeviceMemory memory, DataType type) {
        long bytes = memory.bytes();
        if (bytes % type.bytes() != 0) {
            throw new IllegalArgumentException(bytes + " bytes are not a whole number of " + type + " elements");
        }
        return bytes / type.bytes();
    }

    private static void requireCount(DeviceMemory memory, DataType type, long count, String which) {
        if (count(memory, type) != count) {
            throw new IllegalArgumentException("the " + which + " buffer holds " + count(memory, type) + " " + type
                    + " elements; this call needs " + count);
        }
    }

    private int peer(int peer) {
        if (peer < 0 || peer >= size()) {
            throw new IllegalArgumentException("rank " + peer + " is not a rank of this communicator of " + size());
        }
        return peer;
    }

    @Override
    public String toString() {
        return "NCCL communicator (rank " + rank() + " of " + size() + ") on " + context.device();
    }
}