package org.cudaipc4j.launch;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.coord.Durations;
import org.cudaipc4j.coord.IdleStrategy;

/**
 * The side of a {@link RankGroup} of every rank but 0. Joining, it connects to rank 0, retrying until the join
 * timeout (rank 0 may start later), proves it knows the shared secret, checks that rank 0 knows it too, and waits
 * for the payload; a refusal or a fault relayed meanwhile ends the join with its line. Afterwards it watches rank 0
 * alone through one reader, sends its barriers to rank 0 and waits for their release, takes the faults rank 0
 * relays as its own, and counts rank 0's goodbye before its own close as the group's end.
 */
final class MemberSide extends GroupWatch {
    /** How long rank 0 may take to answer a JOIN with its proof: it sends it as soon as it read the JOIN. */
    static final Duration PROOF_WAIT = Duration.ofSeconds(1);

    MemberSide(RendezvousOptions options) {
        super(options);
    }

    // ------------------------------------------------------------------------------------------------ joining

    @Override
    void join() throws InterruptedException {
        long deadline = System.nanoTime() + options.joinTimeout().toNanos();
        String timeout = Durations.millisOrSeconds(options.joinTimeout());
        // rank 0 may start later than this rank: each try a little later than the last, never past the deadline
        IdleStrategy retry = IdleStrategy.parking(Duration.ofMillis(20), Duration.ofMillis(500));
        IOException last = null;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RendezvousException("rank 0 at " + where + " did not answer within " + timeout
                        + (last == null ? "" : " (" + last.getMessage() + ")"), null, last);
            }
            Socket s = new Socket();
            boolean[] reached = {false};
            try {
                InetSocketAddress a = options.address();
                s.connect(a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a,
                        (int) Math.max(1, left / 1_000_000));
                if (attempt(s, deadline, timeout, reached)) {
                    startThreads();
                    return;
                }
            } catch (SocketTimeoutException e) {
                throw new RendezvousException("rank 0 at " + where + " did not answer within " + timeout, null, e);
            } catch (EOFException e) {
                last = new EOFException("it closed the connection");
            } catch (IOException e) {
                last = e;
            } finally {
                if (!peers.containsKey(0)) {
                    Closing.closeQuietly(s);
                }
            }
            if (reached[0] || last instanceof EOFException) {
                // someone took the connection and dropped it before the proof: rank 0 giving its place to another
                // (a flood of strangers), which the next try at once may win
                retry.reset();
            }
            retry.idleUntil(deadline);
        }
    }

    /**
     * One try on a connected socket: the handshake, then the wait for START. Returns true once joined; an end of
     * the stream or an error before rank 0 proved the secret is for the caller to retry ({@code reached} says
     * whether rank 0 answered); anything after that is final.
     */
    private boolean attempt(Socket s, long deadline, String timeout, boolean[] reached) throws IOException {
        s.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        Connection c = new Connection(s);
        c.send(Wire.preamble());
        int[] v;
        try {
            v = Wire.readPreamble(c.in);
        } catch (Wire.ProtocolException e) {
            throw new RendezvousException("rank 0 at " + where + ": " + e.getMessage(), null, e);
        }
        reached[0] = true;
        if (v[0] != Wire.MAJOR) {
            throw new RendezvousException("rank 0 at " + where + " speaks rendezvous protocol "
                    + Wire.version(v[0], v[1]) + ", rank " + rank + " speaks " + Wire.version(Wire.MAJOR, Wire.MINOR));
        }
        byte[] serverNonce = expect(c, Wire.CHALLENGE, (int) Wire.CHALLENGE_BODY.byteSize()).body();
        byte[] clientNonce = Wire.nonce();
        byte[] secret = options.secret();
        byte[] mac = Wire.joinMac(secret, serverNonce, rank, size, options.ncclVersion(), clientNonce);
        c.send(Wire.join(new Wire.Join(rank, size, options.ncclVersion(), clientNonce, mac)));
        awaitWelcome(c, deadline, Wire.welcomeMac(secret, clientNonce, serverNonce));
        Wire.Frame f = awaitStart(c, timeout);
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
        return true;
    }

    /**
     * Reads the WELCOME, which rank 0 sends as soon as it read the JOIN: one that stays silent for longer than
     * {@link #PROOF_WAIT} cannot prove the secret (another program holds the port) and is not waited for.
     */
    private void awaitWelcome(Connection c, long deadline, byte[] proof) throws IOException {
        long wait = Math.min(PROOF_WAIT.toNanos(), deadline - System.nanoTime());
        c.socket.setSoTimeout((int) Math.max(1, wait / 1_000_000));
        Wire.Frame f;
        try {
            f = expect(c, Wire.WELCOME, (int) Wire.WELCOME_BODY.byteSize());
        } catch (SocketTimeoutException e) {
            throw new RendezvousException("rank 0 at " + where + " did not prove it knows the secret within "
                    + Durations.millisOrSeconds(PROOF_WAIT) + " of rank " + rank + "'s JOIN: is another program"
                    + " listening there?", null, e);
        }
        if (!Wire.sameMac(f.body(), proof)) {
            throw new RendezvousException("rank 0 at " + where + " does not know the secret");
        }
        c.socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
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
            } catch (EOFException e) { // rank 0 welcomed this rank: its end is final, not a reason to try again
                throw new RendezvousException("rank 0 at " + where + " closed the connection before it started the"
                        + " group of " + size + " ranks", null, e);
            } catch (IOException e) {
                throw new RendezvousException("rank 0 at " + where + " broke the connection before it started the"
                        + " group of " + size + " ranks (" + e.getMessage() + ")", null, e);
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

    @Override
    void startReaders() {
        Connection c = peers.get(0);
        startThread("reader", () -> read(c));
    }

    @Override
    boolean endedWhileJoining(Connection c) {
        return false; // its connection joins the group only once the group started
    }

    // ------------------------------------------------------------------------------------------------ barriers

    @Override
    void enterBarrier(int gen) {
        if (fault == null) {
            peers.get(0).send(Wire.barrier(gen));
        }
    }

    @Override
    void barrierFrame(Connection c, int gen) {
        released = Math.max(released, gen);
        lock.notifyAll();
    }

    @Override
    String notReleased(int gen, Duration timeout) {
        return "rank 0 at " + where + " did not release it within " + Durations.millisOrSeconds(timeout);
    }

    // ------------------------------------------------------------------------------------------------ faults

    @Override
    Fault goodbyeFault(Connection c) {
        return closing ? null
                : new Fault(0, Fault.Kind.LEFT, "rank 0 left the group before rank " + rank + " closed");
    }

    @Override
    void faultFrame(Wire.Frame f) throws Wire.ProtocolException {
        raise(Wire.parseFault(f));
    }

    @Override
    boolean raisedBefore(Connection about) {
        return false;
    }

    @Override
    List<Connection> relayTo() {
        return List.of();
    }

    // ------------------------------------------------------------------------------------------------ closing

    @Override
    long sayGoodbye(long deadline) {
        peers.values().forEach(c -> c.finish(Wire.frame(Wire.GOODBYE)));
        return deadline;
    }

    @Override
    void closeRole() {
        // nothing but its connection to rank 0, which the group closes
    }
}
