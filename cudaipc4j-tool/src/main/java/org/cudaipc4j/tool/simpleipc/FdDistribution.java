package org.cudaipc4j.tool.simpleipc;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.FdServer;

/**
 * How the file descriptors of the parent's exports reach the children when they cannot travel in the control block
 * ({@code --ipc vmm|pool}): the parent listens on a private Unix socket (its path on the children's command line);
 * each child connects, names its index, and receives every process's memory descriptors in slot order. Only this
 * user's processes that the supervisor started are served.
 */
final class FdDistribution implements AutoCloseable {
    private final Path socket;
    private FdServer server;

    private FdDistribution(Path socket) {
        this.socket = socket;
    }

    /**
     * The group's socket, not listening yet ({@link #listen}): its path goes on the children's command line, and
     * opening it (its first use of the socket calls) need not delay their start.
     */
    static FdDistribution planned() {
        return new FdDistribution(FdServer.newPrivateSocket());
    }

    /** Listens on the socket (in a new directory of the shared-memory directory, mode 0700). */
    void listen() {
        server = FdServer.openPrivate(socket);
    }

    Path socket() {
        return socket;
    }

    /**
     * Serves {@code children} connections on a daemon thread until the deadline: each gets {@code fds}. A peer that
     * is not one of the group ({@code member} says no) is refused.
     */
    void serve(int children, int[] fds, LongPredicate member, Deadline deadline) {
        if (server == null) {
            throw new IllegalStateException("the socket is not listening yet");
        }
        List<Integer> all = new ArrayList<>(fds.length);
        for (int fd : fds) {
            all.add(fd);
        }
        Thread.ofPlatform().daemon().name("cudaipc4j-fd-distribution").start(() -> {
            int served = 0;
            while (served < children) {
                try (FdChannel channel = server.accept(deadline.remaining())) {
                    if (!member.test(channel.peer().pid())) {
                        continue; // not one of ours: nothing is sent
                    }
                    try (FdMessage request = channel.receive(deadline.remaining())) {
                        channel.send(request.payload(), all);
                    }
                    served++;
                } catch (CoordinationException e) {
                    if (deadline.hasPassed()) {
                        return;
                    }
                }
            }
        });
    }

    /**
     * Child side: connects to {@code socket}, asks as process {@code index}, and returns the descriptors (owned by
     * the message).
     */
    static FdMessage fetch(Path socket, int index, Duration timeout) {
        try (FdChannel channel = FdChannel.connect(socket, timeout)) {
            channel.send(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(index).array(), List.of());
            return channel.receive(timeout);
        }
    }

    /**
     * Runs the descriptor transport once on a daemon thread ({@link FdChannel#warmUp}), so that this process's
     * first real exchange does not link its native calls. A failure here is dropped: the real exchange reports it.
     */
    static void warmUpInBackground() {
        Thread.ofPlatform().daemon().name("cudaipc4j-fd-warm-up").start(() -> {
            try {
                FdChannel.warmUp();
            } catch (RuntimeException ignored) {
                // the exchange itself will say what is wrong
            }
        });
    }

    /** Stops listening and removes the socket. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
