package org.cudaipc4j.launch;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.cudaipc4j.base.Closing;

/**
 * Rank 0's connections that have not proven the secret yet, served by the thread that accepts them, without
 * blocking: until it proves itself each costs one descriptor and a buffer of 93 bytes, and nothing of it is left
 * once it is dropped. A flood of strangers cannot keep the real ranks out. A connection must send its preamble
 * within {@link #PREAMBLE_WAIT_NANOS} and its JOIN within the handshake timeout; when all {@link #MAX} places are
 * taken, a connection that arrives takes the place of the one that has shown the least: first a refused one still being
 * drained, then the oldest that has not sent its preamble, then the oldest that owes its JOIN. A real rank sends its
 * preamble as it connects and its JOIN one round trip after the CHALLENGE, so it keeps its place while strangers
 * that stay silent or trickle bytes hold the others.
 */
final class Handshakes implements AutoCloseable {
    /** The most connections in their handshake at once. */
    static final int MAX = 64;
    /** How long an accepted connection may take to send its preamble, which a real rank sends as it connects. */
    static final long PREAMBLE_WAIT_NANOS = 1_000_000_000L;
    /**
     * The kernel's queue of connections not yet accepted: long, so that a flood does not fill it, which would make
     * the kernel drop a real rank's SYN (retried only a second later). Linux caps it at net.core.somaxconn.
     */
    static final int BACKLOG = 4096;
    /** How long a refused peer may still send, so that closing does not reset the connection and lose the line. */
    private static final long DRAIN_NANOS = 500_000_000L;

    private static final int PREAMBLE = (int) Wire.PREAMBLE.byteSize();
    private static final int HEAD = (int) Wire.FRAME_HEAD.byteSize();
    private static final int JOIN = (int) Wire.JOIN_BODY.byteSize();

    /** What rank 0 makes of a whole JOIN: a refusal, or the connection of the rank that joined and its WELCOME. */
    record Verdict(String refusal, Connection joined, byte[] welcome) {
        static Verdict refuse(String line) {
            return new Verdict(line, null, null);
        }
    }

    /** Rank 0's checks of a JOIN whose proof was signed over {@code serverNonce}, arrived on {@code channel}. */
    interface Judge {
        Verdict judge(Wire.Join join, byte[] serverNonce, SocketChannel channel) throws IOException;
    }

    /** In the order in which they give way. */
    private enum Stage { DRAINING, PREAMBLE, JOIN }

    private static final class Pending {
        final SocketChannel channel;
        final SelectionKey key;
        final long accepted;
        final ByteBuffer in = ByteBuffer.allocate(PREAMBLE + HEAD + JOIN);
        Stage stage = Stage.PREAMBLE;
        long since;
        long deadline;
        byte[] serverNonce;
        int drained;

        Pending(SocketChannel channel, SelectionKey key, long now) {
            this.channel = channel;
            this.key = key;
            this.accepted = now;
            this.since = now;
        }
    }

    private static final Comparator<Pending> WEAKEST = Comparator.<Pending>comparingInt(p -> p.stage.ordinal())
            .thenComparingLong(p -> p.since);

    private final ServerSocketChannel server;
    private final Selector selector;
    private final long handshakeNanos;
    private final String where;
    private final Judge judge;
    private final Consumer<Connection> handOver;
    private final List<Pending> pending = new ArrayList<>();
    private final ByteBuffer sink = ByteBuffer.allocate(8192);
    // kept from round to round: a flood makes many rounds, each of which would otherwise leave garbage
    private final List<SelectionKey> ready = new ArrayList<>();
    private final List<Connection> joined = new ArrayList<>();

    /**
     * Serves the connections {@code server} accepts; each that joined goes, blocking again, to {@code handOver}.
     *
     * @param where rank 0's address, for the refusal lines
     */
    Handshakes(ServerSocketChannel server, long handshakeNanos, String where, Judge judge,
            Consumer<Connection> handOver) throws IOException {
        this.server = server;
        this.handshakeNanos = handshakeNanos;
        this.where = where;
        this.judge = judge;
        this.handOver = handOver;
        this.selector = Selector.open();
        try {
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            Closing.closeQuietly(selector);
            throw e;
        }
    }

    /** {@return how many connections are in their handshake now} */
    int size() {
        return pending.size();
    }

    /** Waits until something arrives or a deadline, at most until {@code until}, and serves what arrived. */
    void round(long until) throws IOException {
        long now = System.nanoTime();
        long wake = until;
        for (int i = pending.size() - 1; i >= 0; i--) {
            Pending p = pending.get(i);
            if (now - p.deadline >= 0) {
                drop(p); // silent or slow past its deadline
            } else if (p.deadline - wake < 0) {
                wake = p.deadline;
            }
        }
        if (selector.selectedKeys().isEmpty()) {
            long millis = (wake - now + 999_999) / 1_000_000;
            if (millis > 0) {
                selector.select(millis);
            } else {
                selector.selectNow();
            }
        }
        ready.addAll(selector.selectedKeys());
        selector.selectedKeys().clear();
        for (SelectionKey k : ready) {
            if (k.isValid() && k.channel() == server) {
                acceptSome();
            } else if (k.isValid()) {
                step((Pending) k.attachment());
            }
        }
        ready.clear();
        if (!joined.isEmpty()) {
            selector.selectNow(); // deregisters the joined channels' cancelled keys, so they can block again
            for (Connection c : joined) {
                try {
                    c.socket.getChannel().configureBlocking(true);
                } catch (IOException e) {
                    c.close(); // gone already: its reader sees that and frees its place
                }
                handOver.accept(c);
            }
            joined.clear();
        }
    }

    /**
     * Accepts what waits, a quarter of the places at a time: a connection accepted now is read in this round or the
     * next, before newer ones can have taken the places of all older than it, so a real rank whose preamble came
     * a moment after its connection still keeps its place.
     */
    private void acceptSome() throws IOException {
        for (int n = 0; n < MAX / 4; n++) {
            SocketChannel ch = server.accept();
            if (ch == null) {
                return;
            }
            if (pending.size() >= MAX) {
                drop(pending.stream().min(WEAKEST).orElseThrow());
            }
            Pending p;
            try {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                long now = System.nanoTime();
                p = new Pending(ch, ch.register(selector, SelectionKey.OP_READ), now);
                p.key.attach(p);
                p.deadline = now + Math.min(PREAMBLE_WAIT_NANOS, handshakeNanos);
                p.in.limit(PREAMBLE);
            } catch (IOException e) {
                Closing.closeQuietly(ch);
                continue;
            }
            pending.add(p);
            step(p); // a real rank's preamble is often here already: it sent it as it connected
        }
    }

    /** Reads what {@code p} sent, as far as its stage needs, and moves it on. */
    private void step(Pending p) {
        try {
            while (p.key.isValid()) {
                if (p.stage == Stage.DRAINING) {
                    drain(p);
                    return;
                }
                if (p.channel.read(p.in) < 0) {
                    drop(p); // gone before it proved anything
                    return;
                }
                if (p.in.hasRemaining()) {
                    return; // more to come
                }
                advance(p);
            }
        } catch (Wire.ProtocolException e) {
            refuse(p, "rendezvous on " + where + ": " + e.getMessage());
        } catch (IOException e) {
            drop(p);
        }
    }

    /** {@code p} sent all its stage needed. */
    private void advance(Pending p) throws IOException {
        byte[] got = new byte[p.in.position()];
        p.in.get(0, got);
        if (p.stage == Stage.PREAMBLE) {
            preamble(p, got);
        } else if (got.length == PREAMBLE + HEAD) {
            byte[] head = Arrays.copyOfRange(got, PREAMBLE, got.length);
            int length = Wire.length(head);
            if (Wire.type(head) != Wire.JOIN || length - 1 != JOIN) {
                refuse(p, "rendezvous on " + where + ": expected a JOIN frame of " + JOIN + " bytes, got type "
                        + Wire.type(head) + " of " + (length - 1));
                return;
            }
            p.in.limit(PREAMBLE + HEAD + JOIN);
        } else {
            Wire.Join join = Wire.parseJoin(Arrays.copyOfRange(got, PREAMBLE + HEAD, got.length));
            Verdict v = judge.judge(join, p.serverNonce, p.channel);
            if (v.refusal() != null) {
                refuse(p, v.refusal());
                return;
            }
            p.key.cancel();
            pending.remove(p);
            if (!write(p, v.welcome())) {
                v.joined().close(); // its reader sees the end and frees its place
            }
            joined.add(v.joined());
        }
    }

    private void preamble(Pending p, byte[] got) throws IOException {
        int[] v;
        try {
            v = Wire.readPreamble(new ByteArrayInputStream(got));
        } catch (Wire.ProtocolException e) {
            drop(p); // another protocol: nothing it could read
            return;
        }
        if (v[0] != Wire.MAJOR) {
            write(p, Wire.preamble());
            refuse(p, "rendezvous protocol " + Wire.version(v[0], v[1]) + " refused: rank 0 at " + where
                    + " speaks " + Wire.version(Wire.MAJOR, Wire.MINOR));
            return;
        }
        p.serverNonce = Wire.nonce();
        byte[] challenge = Wire.frame(Wire.CHALLENGE, p.serverNonce);
        byte[] both = Arrays.copyOf(Wire.preamble(), PREAMBLE + challenge.length);
        System.arraycopy(challenge, 0, both, PREAMBLE, challenge.length);
        if (!write(p, both)) {
            drop(p);
            return;
        }
        p.stage = Stage.JOIN;
        p.since = System.nanoTime();
        p.deadline = p.accepted + handshakeNanos;
        p.in.limit(PREAMBLE + HEAD);
    }

    /** Tells {@code p} why in one line, half-closes, and drains what it still sends for a while. */
    private void refuse(Pending p, String line) {
        if (!write(p, Wire.textFrame(Wire.REFUSE, line))) {
            drop(p);
            return;
        }
        try {
            p.channel.shutdownOutput();
        } catch (IOException e) {
            drop(p);
            return;
        }
        p.stage = Stage.DRAINING;
        p.since = System.nanoTime();
        p.deadline = p.since + DRAIN_NANOS;
    }

    private void drain(Pending p) throws IOException {
        while (true) {
            sink.clear();
            int n = p.channel.read(sink);
            if (n < 0 || (p.drained += n) >= Wire.MAX_FRAME) {
                drop(p);
                return;
            }
            if (n == 0) {
                return;
            }
        }
    }

    /** Writes {@code bytes} at once (a handshake's frames fit the empty send buffer); false when it did not. */
    private static boolean write(Pending p, byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            p.channel.write(b);
        } catch (IOException e) {
            return false;
        }
        return !b.hasRemaining();
    }

    private void drop(Pending p) {
        p.key.cancel();
        try { // its end of the stream first: what it sent unread would otherwise reset the connection
            p.channel.shutdownOutput();
        } catch (IOException e) {
            // broken already
        }
        try { // deregisters it now: a registered channel's descriptor stays open until the next selection
            selector.selectNow();
        } catch (IOException e) {
            // the selector is broken: the next round fails with it
        }
        Closing.closeQuietly(p.channel);
        pending.remove(p);
    }

    /** Drops every connection still in its handshake; the server socket is its owner's to close. */
    @Override
    public void close() {
        List.copyOf(pending).forEach(this::drop);
        Closing.closeQuietly(selector);
    }
}
