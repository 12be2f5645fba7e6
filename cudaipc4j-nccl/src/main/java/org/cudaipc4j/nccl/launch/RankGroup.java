package org.cudaipc4j.nccl.launch;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * The ranks after a {@link Rendezvous#join}: the payload rank 0 handed out, and a watch over the others that
 * stays on until {@link #close}. Every rank holds one TCP connection to rank 0 (a star). Heartbeats flow both
 * ways; rank 0 watches every rank, the others watch rank 0, and rank 0 relays each fault it sees to all the
 * others, so every rank learns of any rank's death or silence within the silence limit and about one heartbeat
 * interval.
 *
 * <p>The group owns its sockets and threads: a reader per connection, a ticker that sends heartbeats and checks
 * silences, and a thread that calls the fault listeners. {@link #close} says goodbye (not a fault for the others),
 * ends them all and returns once they are gone.
 */
public final class RankGroup implements AutoCloseable {
    private static final Runnable STOP = () -> { };
    /** The most connections rank 0 lets prove themselves at once; more are dropped at once. */
    private static final int MAX_HANDSHAKES = 64;

    private final RendezvousOptions options;
    private final int rank;
    private final int size;
    private final long intervalNanos;
    private final long limitNanos;
    private String where;

    private final Object lock = new Object();
    private final Object closeLock = new Object();
    /** Rank 0: the ranks that joined; other ranks: rank 0 alone. */
    private final Map<Integer, Connection> peers = new TreeMap<>();
    private final HeartbeatWatch watch;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Consumer<Fault>> listeners = new ArrayList<>();
    private final BlockingQueue<Runnable> notices = new LinkedBlockingQueue<>();
    private Thread notifier;
    private byte[] payload = new byte[0];
    private boolean started;
    private boolean closing;
    private boolean closed;
    private boolean tickerStop;
    private volatile boolean silent;
    private Fault fault;

    // rank 0 while it waits for the others
    private ServerSocket server;
    private final Map<Socket, Long> handshakes = new HashMap<>();
    private String joinFailure;
    private boolean allArrived;

    // barriers
    private int generation;
    private int released;
    private int hostEntered;
    private final Map<Integer, Set<Integer>> arrivals = new HashMap<>();

    private RankGroup(RendezvousOptions options) {
        this.options = options;
        this.rank = options.rank();
        this.size = options.size();
        this.intervalNanos = options.heartbeatInterval().toNanos();
        this.limitNanos = options.silenceLimit().toNanos();
        this.watch = new HeartbeatWatch(limitNanos);
        this.where = Wire.where(options.address());
    }

    /** {@return this rank} */
    public int rank() {
        return rank;
    }

    /** {@return the number of ranks} */
    public int size() {
        return size;
    }

    /**
     * What rank 0 handed out (NCCL's unique id).
     *
     * @return a copy of the payload
     */
    public byte[] payload() {
        return payload.clone();
    }

    /**
     * Rank 0's address as {@code host:port}, with the port it bound.
     *
     * @return the address, for messages
     */
    public String address() {
        return where;
    }

    /**
     * The first fault this rank learned of, if any.
     *
     * @return the fault, or empty while all ranks are well
     */
    public Optional<Fault> fault() {
        synchronized (lock) {
            return Optional.ofNullable(fault);
        }
    }

    /**
     * Calls {@code listener} once, on a thread the group owns, with the first fault this rank learns of; at once
     * when there already is one. A listener added after {@link #close} is never called. A listener may call
     * {@link #close}.
     *
     * @param listener receives the fault
     */
    public void onFault(Consumer<Fault> listener) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            listeners.add(listener);
            if (fault != null) {
                Fault f = fault;
                notices.add(() -> listener.accept(f));
            }
        }
    }

    /**
     * Waits until every rank reached its barrier of the same number (the ranks' n-th calls meet).
     *
     * @param timeout the longest wait
     * @throws RendezvousException when the time is up (naming who did not arrive) or a fault occurs (carrying
     *     it); a group that has a fault fails every barrier at once
     * @throws InterruptedException when interrupted while waiting
     * @throws IllegalStateException after {@link #close}
     */
    public void barrier(Duration timeout) throws RendezvousException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            if (closing) {
                throw new IllegalStateException("rank group of rank " + rank + " is closed");
            }
            int gen = ++generation;
            if (rank == 0) {
                hostEntered = gen;
                maybeRelease(gen);
            } else if (fault == null) {
                peers.get(0).send(Wire.frame(Wire.BARRIER, ByteBuffer.allocate(4).putInt(gen).array()));
            }
            while (released < gen) {
                if (fault != null) {
                    throw new RendezvousException("barrier " + gen + ": " + fault.message(), fault, null);
                }
                if (closing) {
                    throw new RendezvousException("barrier " + gen + ": the group was closed");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new RendezvousException("barrier " + gen + ": " + (rank == 0
                            ? ranks(missing(arrivals.getOrDefault(gen, Set.of()))) + " of " + size
                                    + " did not arrive within " + Durations.text(timeout)
                            : "rank 0 at " + where + " did not release it within " + Durations.text(timeout)));
                }
                waitNanos(left);
            }
        }
    }

    /**
     * Says goodbye and ends the group: no thread and no socket of it is left when this returns. Rank 0 first
     * waits, at most the silence limit, for the other ranks' goodbyes, so that ranks finishing together do not
     * take its leaving for a death. Idempotent.
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            synchronized (lock) {
                if (closing) {
                    return;
                }
                closing = true;
                lock.notifyAll();
            }
            long deadline = System.nanoTime() + limitNanos;
            if (rank == 0) {
                synchronized (lock) {
                    while (peers.values().stream().anyMatch(c -> !c.saidGoodbye && !c.faulted && !c.ended)
                            && waitUntil(deadline)) {
                        // woken by a goodbye, a fault or an end
                    }
                }
                peers.values().forEach(c -> c.finish(Wire.frame(Wire.GOODBYE)));
                deadline = System.nanoTime() + intervalNanos;
            } else {
                peers.values().forEach(c -> c.finish(Wire.frame(Wire.GOODBYE)));
            }
            synchronized (lock) { // each end half-closes after a goodbye: the streams end cleanly, no reset
                while (peers.values().stream().anyMatch(c -> !c.ended) && waitUntil(deadline)) {
                    // woken by a reader that ended
                }
            }
            shutDown();
        }
    }

    /** Closes every socket and joins every thread the group started (not the caller's own). */
    private void shutDown() {
        List<Thread> all;
        synchronized (lock) {
            closing = true;
            closed = true;
            tickerStop = true;
            lock.notifyAll();
            closeServer();
            handshakes.keySet().forEach(RankGroup::closeQuietly);
            peers.values().forEach(Connection::close);
            all = new ArrayList<>(threads);
            notices.add(STOP);
        }
        boolean interrupted = false;
        for (Thread t : all) {
            while (t != Thread.currentThread() && t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** For tests: stop sending heartbeats, as a stopped process would. */
    void pauseHeartbeats() {
        silent = true;
    }

    /** For tests: end without a goodbye, as a killed process would. */
    void abandon() {
        shutDown();
    }

    @Override
    public String toString() {
        return "RankGroup[rank " + rank + " of " + size + " at " + where + "]";
    }

    // ------------------------------------------------------------------------------------------------ joining

    static RankGroup join(RendezvousOptions options) throws RendezvousException, InterruptedException {
        RankGroup g = new RankGroup(options);
        boolean ok = false;
        try {
            if (options.rank() == 0) {
                g.host();
            } else {
                g.member();
            }
            ok = true;
            return g;
        } finally {
            if (!ok) {
                g.shutDown();
            }
        }
    }

    private void host() throws RendezvousException {
        long start = System.nanoTime();
        long deadline = start + options.joinTimeout().toNanos();
        if (size > 1) {
            try {
                ServerSocket s = new ServerSocket();
                s.setReuseAddress(true);
                InetSocketAddress a = options.address();
                s.bind(a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a, size + 16);
                synchronized (lock) {
                    server = s;
                }
                where = Wire.where(options.address().getHostString(), s.getLocalPort());
                options.onBound().accept((InetSocketAddress) s.getLocalSocketAddress());
            } catch (IOException e) {
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
            handshakes.keySet().forEach(RankGroup::closeQuietly); // strangers still talking: the rendezvous is over
            handshakes.clear();
            long now = System.nanoTime();
            for (Connection c : peers.values()) {
                c.send(Wire.frame(Wire.START, payload));
                watch.watch(c.rank, now);
            }
        }
        startThreads();
    }

    private void acceptAll(long deadline) throws RendezvousException {
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
                            + " did not arrive within " + Durations.text(options.joinTimeout());
                    peers.values().forEach(c -> c.finish(Wire.textFrame(Wire.REFUSE, line)));
                    throw new RendezvousException(line);
                }
                wake = deadline;
                for (var it = handshakes.entrySet().iterator(); it.hasNext(); ) {
                    var h = it.next();
                    if (now - h.getValue() >= 0) { // a stranger who says nothing is dropped at its deadline
                        closeQuietly(h.getKey());
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
                        closeQuietly(s);
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
            if (f.type() != Wire.JOIN || f.body().length != 12 + Wire.NONCE_BYTES + Wire.MAC_BYTES) {
                refuse(c, "rendezvous on " + where + ": expected a JOIN frame of " + (12 + 2 * Wire.NONCE_BYTES)
                        + " bytes, got type " + f.type() + " of " + f.body().length);
                return;
            }
            ByteBuffer b = f.buffer();
            int r = b.getInt();
            int n = b.getInt();
            int nccl = b.getInt();
            byte[] clientNonce = new byte[Wire.NONCE_BYTES];
            byte[] mac = new byte[Wire.MAC_BYTES];
            b.get(clientNonce).get(mac);
            byte[] secret = options.secret();
            if (!Wire.sameMac(mac, Wire.joinMac(secret, serverNonce, r, n, nccl, clientNonce))) {
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
        closeQuietly(s);
    }

    private void member() throws RendezvousException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + options.joinTimeout().toNanos();
        String timeout = Durations.text(options.joinTimeout());
        long backoff = 20;
        IOException last = null;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RendezvousException("rank 0 at " + where + " did not answer within " + timeout
                        + (last == null ? "" : " (" + last.getMessage() + ")"), null, last);
            }
            Socket s = new Socket();
            Connection c = null;
            boolean kept = false;
            try {
                InetSocketAddress a = options.address();
                s.connect(a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a,
                        (int) Math.max(1, left / 1_000_000));
                s.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                c = new Connection(s);
                c.send(Wire.preamble());
                int[] v;
                try {
                    v = Wire.readPreamble(c.in);
                } catch (Wire.ProtocolException e) {
                    throw new RendezvousException("rank 0 at " + where + ": " + e.getMessage(), null, e);
                }
                if (v[0] != Wire.MAJOR) {
                    throw new RendezvousException("rank 0 at " + where + " speaks rendezvous protocol "
                            + Wire.version(v[0], v[1]) + ", rank " + rank + " speaks "
                            + Wire.version(Wire.MAJOR, Wire.MINOR));
                }
                Wire.Frame f = expect(c, Wire.CHALLENGE, Wire.NONCE_BYTES);
                byte[] serverNonce = f.body();
                byte[] clientNonce = Wire.nonce();
                byte[] secret = options.secret();
                byte[] mac = Wire.joinMac(secret, serverNonce, rank, size, options.ncclVersion(), clientNonce);
                c.send(Wire.frame(Wire.JOIN, ByteBuffer.allocate(12 + Wire.NONCE_BYTES + Wire.MAC_BYTES)
                        .putInt(rank).putInt(size).putInt(options.ncclVersion()).put(clientNonce).put(mac).array()));
                f = expect(c, Wire.WELCOME, Wire.MAC_BYTES);
                if (!Wire.sameMac(f.body(), Wire.welcomeMac(secret, clientNonce, serverNonce))) {
                    throw new RendezvousException("rank 0 at " + where + " does not know the secret");
                }
                f = awaitStart(c, timeout);
                if (f.body().length > Wire.MAX_PAYLOAD) {
                    throw new RendezvousException("rank 0 at " + where + " sent a payload of " + f.body().length
                            + " bytes, over the limit of " + Wire.MAX_PAYLOAD);
                }
                s.setSoTimeout(0);
                synchronized (lock) {
                    payload = f.body();
                    started = true;
                    c.rank = 0;
                    peers.put(0, c);
                    watch.watch(0, System.nanoTime());
                }
                kept = true;
                startThreads();
                return;
            } catch (SocketTimeoutException e) {
                throw new RendezvousException("rank 0 at " + where + " did not answer within " + timeout, null, e);
            } catch (EOFException e) {
                last = new EOFException("it closed the connection");
            } catch (RendezvousException e) {
                throw e;
            } catch (IOException e) {
                last = e;
            } finally {
                if (!kept) {
                    closeQuietly(s);
                }
            }
            // rank 0 may start later than this rank: try again, a little later each time
            long pause = Math.min(backoff, Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            Thread.sleep(pause);
            backoff = Math.min(500, backoff * 2);
        }
    }

    /** Waits for START; a REFUSE or a FAULT (a rank died meanwhile) ends the join with its line. */
    private Wire.Frame awaitStart(Connection c, String timeout) throws IOException {
        while (true) {
            Wire.Frame f;
            try {
                f = Wire.read(c.in);
            } catch (SocketTimeoutException e) {
                throw new RendezvousException("rank 0 at " + where + " did not start the group of " + size
                        + " ranks within " + timeout, null, e);
            } catch (Wire.ProtocolException e) {
                throw new RendezvousException("rank 0 at " + where + ": " + e.getMessage(), null, e);
            }
            switch (f.type()) {
                case Wire.START -> {
                    return f;
                }
                case Wire.REFUSE -> throw new RendezvousException(f.text());
                case Wire.FAULT -> {
                    Fault fault = Wire.parseFault(f);
                    throw new RendezvousException("rendezvous on " + where + ": " + fault.message(), fault, null);
                }
                default -> {
                    // a frame of a later minor version
                }
            }
        }
    }

    /** Reads the next frame, which must be {@code type} (of {@code length} bytes unless negative); a REFUSE throws. */
    private Wire.Frame expect(Connection c, int type, int length) throws IOException {
        Wire.Frame f;
        try {
            f = Wire.read(c.in);
        } catch (Wire.ProtocolException e) {
            throw new RendezvousException("rank 0 at " + where + ": " + e.getMessage(), null, e);
        }
        if (f.type() == Wire.REFUSE) {
            throw new RendezvousException(f.text());
        }
        if (f.type() != type || (length >= 0 && f.body().length != length)) {
            throw new RendezvousException("rank 0 at " + where + " sent frame type " + f.type() + " of "
                    + f.body().length + " bytes where type " + type + " belongs");
        }
        return f;
    }

    // ------------------------------------------------------------------------------------------------ running

    private void startThreads() {
        synchronized (lock) {
            notifier = startThread("faults", this::notifyListeners);
            startThread("heartbeat", this::tick);
            if (rank != 0) {
                Connection c = peers.get(0);
                startThread("reader", () -> read(c));
            } // rank 0's readers are the threads that served the handshakes
        }
    }

    private Thread startThread(String role, Runnable body) {
        Thread t = new Thread(body, "cudaipc4j-rendezvous-" + rank + "-" + role);
        t.setDaemon(true);
        synchronized (lock) {
            threads.add(t);
        }
        t.start();
        return t;
    }

    /** Reads frames from one connection until it ends. */
    private void read(Connection c) {
        IOException error = null;
        try {
            while (true) {
                Wire.Frame f = Wire.readOrEnd(c.in);
                if (f == null) {
                    break;
                }
                onFrame(c, f);
            }
        } catch (IOException e) {
            error = e;
        }
        ended(c, error);
    }

    private void onFrame(Connection c, Wire.Frame f) throws Wire.ProtocolException {
        synchronized (lock) {
            watch.heard(c.rank, System.nanoTime());
        }
        switch (f.type()) {
            case Wire.GOODBYE -> {
                c.saidGoodbye = true;
                c.finish(null);
                Fault left = null;
                synchronized (lock) {
                    watch.forget(c.rank);
                    if (rank != 0 && !closing) {
                        left = new Fault(0, Fault.Kind.LEFT, "rank 0 left the group before rank " + rank + " closed");
                    }
                    lock.notifyAll();
                }
                if (left != null) {
                    raise(left);
                }
            }
            case Wire.FAULT -> {
                if (rank != 0) {
                    raise(Wire.parseFault(f));
                }
            }
            case Wire.BARRIER -> {
                if (f.body().length != 4) {
                    throw new Wire.ProtocolException("BARRIER frame of " + f.body().length + " bytes");
                }
                int gen = f.buffer().getInt();
                synchronized (lock) {
                    if (rank == 0) {
                        arrivals.computeIfAbsent(gen, k -> new HashSet<>()).add(c.rank);
                        maybeRelease(gen);
                    } else {
                        released = Math.max(released, gen);
                        lock.notifyAll();
                    }
                }
            }
            default -> {
                // HEARTBEAT, and frame types of later minor versions: only proof of life
            }
        }
    }

    /** Rank 0, under the lock: releases barrier {@code gen} once rank 0 and every other rank reached it. */
    private void maybeRelease(int gen) {
        if (hostEntered >= gen && arrivals.getOrDefault(gen, Set.of()).size() == size - 1) {
            arrivals.remove(gen);
            released = Math.max(released, gen);
            byte[] frame = Wire.frame(Wire.BARRIER, ByteBuffer.allocate(4).putInt(gen).array());
            peers.values().forEach(c -> c.send(frame));
            lock.notifyAll();
        }
    }

    private void ended(Connection c, IOException error) {
        Fault died = null;
        synchronized (lock) {
            c.ended = true;
            lock.notifyAll();
            if (rank == 0 && !allArrived) {
                if (peers.get(c.rank) == c) { // joined, then left before all arrived: its place is free again
                    peers.remove(c.rank);
                }
                c.close();
                return;
            }
            if (c.saidGoodbye || closing) {
                return;
            }
            String why = error == null ? "its connection closed without a goodbye"
                    : error instanceof Wire.ProtocolException ? "it broke the protocol: " + error.getMessage()
                    : error instanceof EOFException ? "its connection closed in the middle of a frame"
                    : "its connection broke (" + error.getMessage() + ")";
            died = new Fault(c.rank, Fault.Kind.DIED, "rank " + c.rank + " died: " + why);
        }
        raise(died);
    }

    /** Records a fault; rank 0 relays it to every other rank. Each rank's fault counts once. */
    private void raise(Fault f) {
        List<Connection> relayTo = List.of();
        synchronized (lock) {
            Connection about = peers.get(f.rank());
            if (about != null && about.rank == f.rank()) {
                if (about.faulted && rank == 0) {
                    return;
                }
                about.faulted = true;
            }
            watch.forget(f.rank());
            if (fault == null) {
                fault = f;
                for (Consumer<Fault> l : listeners) {
                    notices.add(() -> l.accept(f));
                }
            }
            lock.notifyAll();
            if (rank == 0) {
                relayTo = peers.values().stream().filter(c -> !c.faulted && !c.saidGoodbye).toList();
            }
        }
        byte[] frame = Wire.fault(f);
        relayTo.forEach(c -> c.send(frame));
    }

    /** Sends heartbeats and checks silences every interval until the group closes. */
    private void tick() {
        long next = System.nanoTime();
        while (true) {
            List<Connection> to;
            synchronized (lock) {
                next += intervalNanos;
                while (!tickerStop && next - System.nanoTime() > 0) {
                    try {
                        waitNanos(next - System.nanoTime());
                    } catch (InterruptedException e) {
                        return; // only close() ends this thread; nobody else interrupts it
                    }
                }
                if (tickerStop) {
                    return;
                }
                to = peers.values().stream().filter(c -> !c.faulted).toList();
            }
            if (!silent) {
                byte[] beat = Wire.frame(Wire.HEARTBEAT);
                to.forEach(c -> c.send(beat));
            }
            List<HeartbeatWatch.Silent> over;
            synchronized (lock) {
                over = closing ? List.of() : watch.overdue(System.nanoTime());
            }
            for (HeartbeatWatch.Silent s : over) {
                raise(new Fault(s.rank(), Fault.Kind.HUNG,
                        "rank " + s.rank() + " hung: silent for " + Durations.seconds(s.silentNanos())));
            }
        }
    }

    private void notifyListeners() {
        while (true) {
            Runnable r;
            try {
                r = notices.take();
            } catch (InterruptedException e) {
                return;
            }
            if (r == STOP) {
                return;
            }
            try {
                r.run();
            } catch (RuntimeException | Error e) {
                System.err.println("cudaipc4j: a fault listener of rank " + rank + " failed: " + e);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Under the lock: waits until {@code deadline}, or a notify; returns false once the deadline passed. */
    private boolean waitUntil(long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        try {
            waitNanos(left);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing goes on without waiting any longer
            return false;
        }
    }

    private void waitNanos(long nanos) throws InterruptedException {
        lock.wait(Math.max(1, (nanos + 999_999) / 1_000_000));
    }

    private void closeServer() {
        if (server != null) {
            closeQuietly(server);
        }
    }

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

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing is all that is left to do
        }
    }
}
