package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.nccl.binding.NcclCalls;
import org.cudaipc4j.nccl.binding.NcclFunction;
import org.cudaipc4j.nccl.binding.NcclLayouts;

/**
 * How a {@link Communicator} is made: its config, the call that starts NCCL making it, and the wait until NCCL has
 * made it, after which its context owns it. Whatever fails on the way aborts what NCCL made so far.
 */
final class CommunicatorInit {
    private CommunicatorInit() {
    }

    /** Joins the communicator {@code id} names; see {@link Communicator#create}. */
    static Communicator create(Context context, Nccl nccl, UniqueId id, int rank, int size,
                               CommunicatorOptions options, Supplier<Optional<String>> stop) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " of " + size + " is not a rank of a communicator");
        }
        context.makeCurrent();
        Arena arena = Arena.ofShared();
        try {
            MemorySegment config = config(arena, options);
            MemorySegment idBytes = arena.allocate(NcclLayouts.UNIQUE_ID);
            MemorySegment.copy(id.bytes(), 0, idBytes, JAVA_BYTE, 0, UniqueId.BYTES);
            MemorySegment out = arena.allocate(ADDRESS);
            int r = NcclCalls.ncclCommInitRankConfig(out, size, idBytes, rank, config);
            MemorySegment comm = out.get(ADDRESS, 0);
            String what = "rank " + rank + " of " + size;
            return adopt(context, nccl, comm, arena, options.timeout(), NcclFunction.ncclCommInitRankConfig, r,
                    what, stop);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Waits for a communicator NCCL started making, then hands it to its context; aborts it on any failure. */
    static Communicator adopt(Context context, Nccl nccl, MemorySegment comm, Arena arena,
                              Duration timeout, NcclFunction made, int result, String what,
                              Supplier<Optional<String>> stop) {
        if (result != NcclResult.SUCCESS.code() && result != NcclResult.IN_PROGRESS.code()) {
            NcclCallException failure = nccl.failure(made, result, comm);
            abortQuietly(nccl, comm, failure);
            throw failure;
        }
        Poll.untilMade(timeout, new Poll.Watch() {
            @Override
            public int state() {
                return asyncError(nccl, comm);
            }

            @Override
            public String stopRequest() {
                return stop.get().orElse(null);
            }

            @Override
            public RuntimeException failed(int state) {
                NcclCallException failure = nccl.failure(made, state, comm);
                abortQuietly(nccl, comm, failure);
                return failure;
            }

            @Override
            public RuntimeException stopped(String reason) {
                CommunicatorAbortedException stopped = new CommunicatorAbortedException(made.name() + " as " + what
                        + " stopped: " + reason);
                abortQuietly(nccl, comm, stopped);
                return stopped;
            }

            @Override
            public RuntimeException late(String limit) {
                CommunicatorAbortedException late = new CommunicatorAbortedException(made.name() + " as " + what
                        + " did not finish within " + limit + ": not every rank joined; aborted");
                abortQuietly(nccl, comm, late);
                return late;
            }
        });
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rank = a.allocate(JAVA_INT);
            MemorySegment count = a.allocate(JAVA_INT);
            nccl.check(NcclFunction.ncclCommUserRank, NcclCalls.ncclCommUserRank(comm, rank));
            nccl.check(NcclFunction.ncclCommCount, NcclCalls.ncclCommCount(comm, count));
            return new Communicator(context, nccl, comm, arena, rank.get(JAVA_INT, 0), count.get(JAVA_INT, 0),
                    timeout);
        } catch (RuntimeException e) {
            abortQuietly(nccl, comm, e);
            throw e;
        }
    }

    static MemorySegment config(Arena arena, CommunicatorOptions options) {
        MemorySegment config = NcclLayouts.newConfig(arena);
        NcclLayouts.setInt(config, "blocking", options.blocking() ? 1 : 0);
        NcclLayouts.setInt(config, "splitShare", options.splitShare() ? 1 : 0);
        if (options.name() != null) {
            NcclLayouts.setPointer(config, "commName", arena.allocateFrom(options.name()));
        }
        if (options.netName() != null) {
            NcclLayouts.setPointer(config, "netName", arena.allocateFrom(options.netName()));
        }
        return config;
    }

    /** {@return {@code ncclCommGetAsyncError} of {@code comm}, or the call's own error} */
    static int asyncError(Nccl nccl, MemorySegment comm) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            int r = NcclCalls.ncclCommGetAsyncError(comm, out);
            return r != NcclResult.SUCCESS.code() ? r : out.get(JAVA_INT, 0);
        }
    }

    private static void abortQuietly(Nccl nccl, MemorySegment comm, Throwable cause) {
        if (comm.equals(MemorySegment.NULL)) {
            return;
        }
        try {
            int r = NcclCalls.ncclCommAbort(comm);
            if (r != NcclResult.SUCCESS.code()) {
                cause.addSuppressed(nccl.failure(NcclFunction.ncclCommAbort, r, null));
            }
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }
}
