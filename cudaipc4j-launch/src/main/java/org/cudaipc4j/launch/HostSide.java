package org.cudaipc4j.launch;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
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
 * Rank 0's side of a {@link RankGroup}. Joining, it listens on the group's address, runs each connection's handshake
 * on a thread of its own (which then stays as that rank's reader), refuses strangers one by one with a line that
 * says why, ends the whole rendezvous on an NCCL version mismatch, and once all ranks arrived hands each the
 * payload. Afterwards it releases a barrier once every rank reached it, relays each rank's fault once to every other
 * rank, and on closing waits, at most the silence limit, for the other ranks' goodbyes before saying its own.
 */
final class HostSide extends GroupWatch {
    /** The most connections rank 0 lets prove themselves at once; more are dropped at once. */
    private static final int MAX_HANDSHAKES = 64;

    // while it waits for the others
    private ServerSocket server;
    private final Map<Socket, Long> handshakes = new HashMap<>();
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
        long start = System.nanoTime();
        long deadline = start + options.joinTimeout().toNanos();
        if (size > 1) {
            ServerSocket s = null;
            try {
                s = new ServerSocket();
                s.setReuseAddress(true);
                InetSocketAddress a = options.address();
                s.bind(a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a, size + 16);
                synchronized (lock) {
                    server = s; // closed with the group from here on
                }
                where = Wire.where(options.address().getHostString(), s.getLocalPort());
                options.onBound().accept((InetSocketAddress) s.getLocalSocketAddress());
            } catch (IOException e) {
                synchronized (lock) {
                    if (s != null && server != s) {
                        Closing.closeQuietly(s); // it could not listen: nothing else has it
                    }
                }
                throw new RendezvousException("rendezvous on " + where + ": cannot listen there: " + e.getMessage(),
                        null, e);
            }
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
            handshakes.keySet().forEach(Closing::closeQuietly); // strangers still talking: the rendezvous is over
            handshakes.clear();
            long now = System.nanoTime();
            for (Connection c : peers.values()) {
                c.send(Wire.frame(Wire.START, payload));
                watch.watch(c.rank, now);
            }
        }
        startThreads();
    }

    private void acceptAll(long deadline) {
        while (true) {
            long wake;
            synchronized (lock) {
                if (joinFailure != null) {
                    String line = joinFailure;
                    peers.values().forEach(c -> c.finish(Wire.textFrame(Wire.REFUSE, line)));
                    throw new RendezvousException(line);
                }
                if (allArrived) {
                    return;
                }
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    String line = "rendezvous on " + where + ": " + ranks(missing(peers.keySet())) + " of " + size
                            + " did not arrive within " + Durations.millisOrSeconds(options.joinTimeout());
                    peers.values().forEach(c -> c.finish(Wire.textFrame(Wire.REFUSE, line)));
                    throw new RendezvousException(line);
                }
                wake = deadline;
                for (var it = handshakes.entrySet().iterator(); it.hasNext(); ) {
                    var h = it.next();
                    if (now - h.getValue() >= 0) { // a stranger who says nothing is dropped at its deadline
                        Closing.closeQuietly(h.getKey());
                        it.remove();
                    } else if (h.getValue() - wake < 0) {
                        wake = h.getValue();
                    }
                }
                if (server == null || server.isClosed()) {
                    throw new RendezvousException("rendezvous on " + where + " stopped listening");
                }
            }
            try {
                server.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE,
                        (wake - System.nanoTime()) / 1_000_000 + 1)));
                Socket s = server.accept();
                synchronized (lock) {
                    if (handshakes.size() >= MAX_HANDSHAKES) {
                        Closing.closeQuietly(s);
                        continue;
                    }
                    handshakes.put(s, System.nanoTime() + options.handshakeTimeout().toNanos());
                    startThread("handshake", () -> serve(s));
                }
            } catch (SocketTimeoutException e) {
                // a deadline to check
            } catch (IOException e) {
                // closed to wake this loop (all arrived, or a rank was refused for the whole group): checked above
                synchronized (lock) {
                    if (!server.isClosed()) {
                        throw new RendezvousException("rendezvous on " + where + ": accept failed: "
                                + e.getMessage(), null, e);
                    }
                }
            }
        }
    }

    /** Rank 0's side of one connection: the handshake, then the reader for the group. */
    private void serve(Socket s) {
        Connection c;
        try {
            s.setSoTimeout((int) Math.max(1, options.handshakeTimeout().toMillis()));
            c = new Connection(s);
        } catch (IOException e) {
            dropHandshake(s);
            return;
        }
        try {
            int[] v = Wire.readPreamble(c.in);
            if (v[0] != Wire.MAJOR) {
                c.send(Wire.preamble());
                refuse(c, "rendezvous protocol " + Wire.version(v[0], v[1]) + " refused: rank 0 at " + where
                        + " speaks " + Wire.version(Wire.MAJOR, Wire.MINOR));
                return;
            }
            byte[] serverNonce = Wire.nonce();
            c.send(Wire.preamble());
            c.send(Wire.frame(Wire.CHALLENGE, serverNonce));
            Wire.Frame f = Wire.read(c.in);
            if (f.type() != Wire.JOIN || f.body().length != Wire.JOIN_BODY.byteSize()) {
                refuse(c, "rendezvous on " + where + ": expected a JOIN frame of " + Wire.JOIN_BODY.byteSize()
                        + " bytes, got type " + f.type() + " of " + f.body().length);
                return;
            }
            Wire.Join join = Wire.parseJoin(f.body());
            int r = join.rank();
            int n = join.size();
            int nccl = join.nccl();
            byte[] clientNonce = join.nonce();
            byte[] secret = options.secret();
            if (!Wire.sameMac(join.proof(), Wire.joinMac(secret, serverNonce, r, n, nccl, clientNonce))) {
                refuse(c, "rendezvous on " + where + ": wrong secret");
                return;
            }
            if (n != size) {
                refuse(c, "rendezvous on " + where + ": rank " + r + " was started for " + n
                        + " ranks, rank 0 for " + size);
                return;
            }
            if (r < 1 || r >= size) {
                refuse(c, "rendezvous on " + where + ": rank " + r + " is out of range: ranks 1 to " + (size - 1)
                        + " join rank 0");
                return;
            }
            synchronized (lock) {
                handshakes.remove(s);
                if (started || joinFailure != null || closing) {
                    refuse(c, "rendezvous on " + where + " is over");
                    return;
                }
                if (peers.containsKey(r)) {
                    refuse(c, "rendezvous on " + where + ": rank " + r + " has already joined");
                    return;
                }
                if (nccl != options.ncclVersion()) {
                    String line = "rendezvous on " + where + ": rank " + r + " has NCCL "
                            + Wire.ncclVersion(nccl) + ", rank 0 has NCCL " + Wire.ncclVersion(options.ncclVersion())
                            + ": all ranks must load the same NCCL";
                    joinFailure = line;
                    refuse(c, line);
                    closeServer();
                    return;
                }
                s.setSoTimeout(0);
                c.rank = r;
                peers.put(r, c);
                c.send(Wire.frame(Wire.WELCOME, Wire.welcomeMac(secret, clientNonce, serverNonce)));
                if (peers.size() == size - 1) {
                    allArrived = true;
                    closeServer(); // wakes the accept loop
                }
            }
        } catch (Wire.ProtocolException e) {
            if (e.getMessage().startsWith("not the cudaipc4j")) {
                dropHandshake(s); // garbage: nothing it could read
            } else {
                refuse(c, "rendezvous on " + where + ": " + e.getMessage());
            }
            return;
        } catch (IOException e) {
            dropHandshake(s); // silent past the deadline, or gone
            return;
        }
        read(c);
    }

    /** Tells a refused peer why in one line, lets it read that, and drops it. */
    private void refuse(Connection c, String line) {
        c.finish(Wire.textFrame(Wire.REFUSE, line));
        try { // read what it still sends, briefly, so closing does not reset the connection and lose the line
            c.socket.setSoTimeout(500);
            byte[] sink = new byte[8192];
            int total = 0;
            for (int k; total < Wire.MAX_FRAME && (k = c.in.read(sink)) >= 0; ) {
                total += k;
            }
        } catch (IOException e) {
            // dropped anyway
        }
        dropHandshake(c.socket);
    }

    private void dropHandshake(Socket s) {
        synchronized (lock) {
            handshakes.remove(s);
        }
        Closing.closeQuietly(s);
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
        closeServer();
        handshakes.keySet().forEach(Closing::closeQuietly);
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
