package org.cudaipc4j.simpleipc;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongPredicate;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.FdServer;

/**
 * How the file descriptors of the parent's exports reach the children when they cannot travel in the control block
 * ({@code --ipc vmm|pool}): the parent listens on a private Unix socket (its path in the children's settings);
 * each child connects as soon as it has joined the group, names its index, and receives every process's memory
 * descriptors in slot order once the parent has exported them. Connecting early takes the connection and the peer
 * checks off the way from the exports to the children's first step. Only this user's processes that the supervisor
 * started are served.
 */
final class FdDistribution implements AutoCloseable {
    /** A child's request: its index, which the answer repeats. */
    static final StructLayout REQUEST = MemoryLayout.structLayout(ValueLayout.JAVA_INT_UNALIGNED
            .withOrder(ByteOrder.LITTLE_ENDIAN).withName("index")).withName("FdRequest");
    private static final VarHandle REQUEST_INDEX = REQUEST.varHandle(MemoryLayout.PathElement.groupElement("index"));

    private final FdServer server;
    private final CompletableFuture<List<Integer>> exported = new CompletableFuture<>();

    private FdDistribution(FdServer server) {
        this.server = server;
    }

    /**
     * The group's socket, in a new directory of the shared-memory directory (mode 0700), accepting no connection
     * yet ({@link #listen}): its path goes in the children's settings once it exists.
     */
    static FdDistribution open() {
        return new FdDistribution(FdServer.open());
    }

    Path socket() {
        return server.socket();
    }

    /**
     * Serves {@code children} connections on a daemon thread until the deadline: each is accepted and its request
     * read at once, then answered with the descriptors once they are {@linkplain #offer offered}. A peer that is
     * not one of the group ({@code member} says no) is refused.
     */
    void listen(int children, LongPredicate member, Deadline deadline) {
        FdServer listening = server;
        Thread.ofPlatform().daemon().name("cudaipc4j-fd-distribution").start(() -> {
            int served = 0;
            // Every wait a slice of the deadline at a time, looking again after each: a wait that blocked for all
            // that is left would be taken for a pause of this process (Deadline).
            while (served < children) {
                Duration slice = deadline.nextWait();
                if (slice.isZero()) {
                    return; // out of time
                }
                try (FdChannel channel = listening.accept(slice)) {
                    if (!member.test(channel.peer().pid())) {
                        continue; // not one of ours: nothing is sent
                    }
                    try (FdMessage request = channel.receive(deadline.remaining())) {
                        channel.send(request.payload(), exports(deadline));
                    }
                    served++;
                } catch (CoordinationException e) {
                    if (deadline.hasPassed()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException | CancellationException e) {
                    return; // no exports (the parent failed, and aborts the group) or out of time
                } catch (InterruptedException e) {
                    return;
                }
            }
            // Everyone is served: the socket's name goes now, not at the end of the run.
            listening.close();
        });
    }

    /** {@return the descriptors once offered} Waits a slice of {@code deadline} at a time, until it passes. */
    private List<Integer> exports(Deadline deadline)
            throws ExecutionException, TimeoutException, InterruptedException {
        while (true) {
            try {
                return exported.get(deadline.nextWait().toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (deadline.hasPassed()) {
                    throw e;
                }
            }
        }
    }

    /** The descriptors every child gets, in slot order; children waiting for them get them now. */
    void offer(List<Integer> fds) {
        exported.complete(List.copyOf(fds));
    }

    /**
     * Child side: connects to {@code socket} and asks as process {@code index}; the answer is read by {@link
     * Request#receive}. Call as soon as the group is joined.
     */
    static Request request(Path socket, int index, Duration timeout) {
        FdChannel channel = FdChannel.connect(socket, timeout);
        try {
            channel.send(request(index), List.of());
            return new Request(channel);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The bytes of child {@code index}'s {@link #REQUEST}. */
    static byte[] request(int index) {
        byte[] request = new byte[(int) REQUEST.byteSize()];
        REQUEST_INDEX.set(MemorySegment.ofArray(request), 0L, index);
        return request;
    }

    /** A child's request, sent; owns its connection. */
    static final class Request implements AutoCloseable {
        private final FdChannel channel;

        private Request(FdChannel channel) {
            this.channel = channel;
        }

        /** The descriptors (owned by the message), once the parent has exported them. */
        FdMessage receive(Duration timeout) {
            return channel.receive(timeout);
        }

        @Override
        public void close() {
            channel.close();
        }
    }

    /** Stops listening and removes the socket; a child still waiting gets nothing. */
    @Override
    public void close() {
        exported.cancel(false);
        server.close();
    }
}
