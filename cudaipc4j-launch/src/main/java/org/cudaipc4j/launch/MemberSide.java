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
    MemberSide(RendezvousOptions options) {
        super(options);
    }

    // ------------------------------------------------------------------------------------------------ joining

    @Override
    void join() throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + options.joinTimeout().toNanos();
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
                Wire.Frame f = expect(c, Wire.CHALLENGE, (int) Wire.CHALLENGE_BODY.byteSize());
                byte[] serverNonce = f.body();
                byte[] clientNonce = Wire.nonce();
                byte[] secret = options.secret();
                byte[] mac = Wire.joinMac(secret, serverNonce, rank, size, options.ncclVersion(), clientNonce);
                c.send(Wire.join(new Wire.Join(rank, size, options.ncclVersion(), clientNonce, mac)));
                f = expect(c, Wire.WELCOME, (int) Wire.WELCOME_BODY.byteSize());
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
            } catch (IOException e) {
                last = e;
            } finally {
                if (!kept) {
                    Closing.closeQuietly(s);
                }
            }
            retry.idleUntil(deadline);
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
