package org.cudaipc4j.launch;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.coord.Durations;

/**
 * Rank 0's side of a {@link RankGroup}. Joining, it listens on the group's address, serves the handshakes on its
 * own thread without blocking ({@link Handshakes}: a flood of strangers costs it a bounded number of descriptors),
 * starts a reader for each rank that proved the secret, refuses strangers one by one with a line that says why,
 * ends the whole rendezvous on an NCCL version mismatch, and once all ranks arrived hands each the payload. Afterwards it releases a barrier once every rank reached it, relays each rank's fault once to every other
 * rank, and on closing waits, at most the silence limit, for the other ranks' goodbyes before saying its own.
 */
final class HostSide extends GroupWatch {
    // while it waits for the others
    private ServerSocketChannel server;
    private String joinFailure;
    private boolean allArrived;

    // barriers: the latest barrier rank 0 entered, and which ranks reached each barrier not yet released
    private int hostEntered;
    private final Map<Integer, Set<Integer>> arrivals = new HashMap<>();

    HostSide(RendezvousOptions options) {
        super(options);
    }

    // ------------------------------------------------------------------------------------------------ joining

    @Override
    void join() {
        long deadline = System.nanoTime() + options.joinTimeout().toNanos();
        if (size > 1) {
            listen();
            acceptAll(deadline);
        }
        byte[] bytes = options.payload().get();
        synchronized (lock) {
            if (bytes == null || bytes.length > Wire.MAX_PAYLOAD) {
                String line = "rendezvous on " + where + ": rank 0's payload of "
                        + (bytes == null ? "null" : bytes.length + " bytes") + " is over the limit of "
                        + Wire.MAX_PAYLOAD + " bytes";
                peers.values().forEach(c -> c.finish(Wire.textFrame(Wire.REFUSE, line)));
                throw new RendezvousException(line);
            }
            payload = bytes.clone();
            started = true;
            closeServer();
            long now = System.nanoTime();
            for (Connection c : peers.values()) {
                c.send(Wire.frame(Wire.START, payload));
                watch.watch(c.rank, now);
            }
        }
        startThreads();
    }

    /** Binds the group's address; a port another process holds is one line naming the variable that moves it. */
    private void listen() {
        ServerSocketChannel s = null;
        InetSocketAddress a = options.address();
        try {
            s = ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a,
                    Handshakes.BACKLOG);
            synchronized (lock) {
                server = s; // closed with the group from here on
            }
            InetSocketAddress bound = (InetSocketAddress) s.getLocalAddress();
            where = Wire.where(a.getHostString(), bound.getPort());
            options.onBound().accept(bound);
        } catch (IOException e) {
            synchronized (lock) {
                if (s != null && server != s) {
                    Closing.closeQuietly(s); // it could not listen: nothing else has it
                }
            }
            throw new RendezvousException("rendezvous on " + where + ": cannot listen on port " + a.getPort()
                    + " (" + e.getMessage() + "): set " + LaunchSettings.CUDAIPC4J_RENDEZVOUS.name()
                    + "=host:port to an address of this host with a free port", null, e);
        }
    }

    /** Serves the handshakes until every rank joined, the join timeout passed or a rank ended the rendezvous. */
    private void acceptAll(long deadline) {
        try (Handshakes door = new Handshakes(server, options.handshakeTimeout().toNanos(), where, this::judge,
                c -> startThread("reader", () -> read(c)))) {
            while (true) {
                synchronized (lock) {
                    if (joinFailure != null) {
                        String line = joinFailure;
                        peers.values().forEach(c -> c.finish(Wire.textFrame(Wire.REFUSE, line)));
                        throw new RendezvousException(line);
                    }
                    if (allArrived) {
                        return;
                    }
                    if (System.nanoTime() - deadline >= 0) {
                        String line = "rendezvous on " + where + ": " + ranks(missing(peers.keySet())) + " of "
                                + size + " did not arrive within " + Durations.millisOrSeconds(options.joinTimeout());
                        peers.values().forEach(c -> c.finish(Wire.textFrame(Wire.REFUSE, line)));
                        throw new RendezvousException(line);
                    }
                }
                door.round(deadline);
            }
        } catch (IOException e) {
            throw new RendezvousException("rendezvous on " + where + ": accepting connections failed: "
                    + e.getMessage(), null, e);
        }
    }

    /** Rank 0's checks of a whole JOIN, in the documented order; a rank that passes them all has joined. */
    private Handshakes.Verdict judge(Wire.Join join, byte[] serverNonce, SocketChannel channel) throws IOException {
        int r = join.rank();
        byte[] secret = options.secret();
        if (!Wire.sameMac(join.proof(), Wire.joinMac(secret, serverNonce, r, join.size(), join.nccl(),
                join.nonce()))) {
            return Handshakes.Verdict.refuse("rendezvous on " + where + ": wrong secret");
        }
        if (join.size() != size) {
            return Handshakes.Verdict.refuse("rendezvous on " + where + ": rank " + r + " was started for "
                    + join.size() + " ranks, rank 0 for " + size);
        }
        if (r < 1 || r >= size) {
            return Handshakes.Verdict.refuse("rendezvous on " + where + ": rank " + r + " is out of range: ranks 1 to "
                    + (size - 1) + " join rank 0");
        }
        synchronized (lock) {
            if (started || joinFailure != null || closing) {
                return Handshakes.Verdict.refuse("rendezvous on " + where + " is over");
            }
            if (peers.containsKey(r)) {
                return Handshakes.Verdict.refuse("rendezvous on " + where + ": rank " + r + " has already joined");
            }
            if (join.nccl() != options.ncclVersion()) {
                joinFailure = "rendezvous on " + where + ": rank " + r + " has NCCL " + Wire.ncclVersion(join.nccl())
                        + ", rank 0 has NCCL " + Wire.ncclVersion(options.ncclVersion())
                        + ": all ranks must load the same NCCL";
                return Handshakes.Verdict.refuse(joinFailure);
            }
            Connection c = new Connection(channel.socket());
            c.rank = r;
            peers.put(r, c);
            allArrived = peers.size() == size - 1;
            return new Handshakes.Verdict(null, c, Wire.frame(Wire.WELCOME,
                    Wire.welcomeMac(secret, join.nonce(), serverNonce)));
        }
    }

    private void closeServer() {
        if (server != null) {
            Closing.closeQuietly(server);
        }
    }

    @Override
    void startReaders() {
        // rank 0's readers are the threads that served the handshakes
    }

    @Override
    boolean endedWhileJoining(Connection c) {
        if (allArrived) {
            return false;
        }
        if (peers.get(c.rank) == c) { // joined, then left before all arrived: its place is free again
            peers.remove(c.rank);
        }
        c.close();
        return true;
    }

    // ------------------------------------------------------------------------------------------------ barriers

    @Override
    void enterBarrier(int gen) {
        hostEntered = gen;
        maybeRelease(gen);
    }

    @Override
    void barrierFrame(Connection c, int gen) {
        arrivals.computeIfAbsent(gen, k -> new HashSet<>()).add(c.rank);
        maybeRelease(gen);
    }

    @Override
    String notReleased(int gen, Duration timeout) {
        return ranks(missing(arrivals.getOrDefault(gen, Set.of()))) + " of " + size + " did not arrive within "
                + Durations.millisOrSeconds(timeout);
    }

    /** Under the lock: releases barrier {@code gen} once rank 0 and every other rank reached it. */
    private void maybeRelease(int gen) {
        if (hostEntered >= gen && arrivals.getOrDefault(gen, Set.of()).size() == size - 1) {
            arrivals.remove(gen);
            released = Math.max(released, gen);
            byte[] frame = Wire.barrier(gen);
            peers.values().forEach(c -> c.send(frame));
            lock.notifyAll();
        }
    }

    // ------------------------------------------------------------------------------------------------ faults

    @Override
    Fault goodbyeFault(Connection c) {
        return null; // a rank that leaves before rank 0 closes is no fault: it finished
    }

    @Override
    void faultFrame(Wire.Frame f) {
        // only rank 0 relays faults; one from another rank is only proof of life
    }

    @Override
    boolean raisedBefore(Connection about) {
        return about.faulted;
    }

    @Override
    List<Connection> relayTo() {
        return peers.values().stream().filter(c -> !c.faulted && !c.saidGoodbye).toList();
    }

    // ------------------------------------------------------------------------------------------------ closing

    @Override
    long sayGoodbye(long deadline) {
        synchronized (lock) {
            while (peers.values().stream().anyMatch(c -> !c.saidGoodbye && !c.faulted && !c.ended)
                    && waitUntil(deadline)) {
                // woken by a goodbye, a fault or an end
            }
        }
        peers.values().forEach(c -> c.finish(Wire.frame(Wire.GOODBYE)));
        return System.nanoTime() + intervalNanos;
    }

    @Override
    void closeRole() {
        closeServer(); // the connections still in their handshake went with the loop that served them
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The ranks 1 .. size-1 not in {@code present}. */
    private List<Integer> missing(Set<Integer> present) {
        List<Integer> m = new ArrayList<>();
        for (int r = 1; r < size; r++) {
            if (!present.contains(r)) {
                m.add(r);
            }
        }
        return m;
    }

    /** "rank 2" or "ranks 2, 3". */
    private static String ranks(List<Integer> ranks) {
        StringJoiner j = new StringJoiner(", ", ranks.size() == 1 ? "rank " : "ranks ", "");
        ranks.forEach(r -> j.add(Integer.toString(r)));
        return j.toString();
    }
}
