package org.cudaipc4j.launch;

import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.cudaipc4j.coord.Durations;

/**
 * The machinery of a {@link RankGroup} that is the same on every rank: its connections (a star around rank 0), a
 * reader per connection, the ticker that sends heartbeats and checks silences, the recording of faults and the
 * thread that calls the fault listeners, the barriers' waiting, the goodbyes and the shutdown that leaves no thread
 * and no socket behind. What rank 0 does ({@link HostSide}) and what the other ranks do ({@link MemberSide}) differs
 * in joining, in barriers, in relaying faults and in saying goodbye; the subclasses supply those parts.
 *
 * <p>One lock, {@link #lock}, guards the state of this class and of its subclasses; waits are on it too.
 */
abstract sealed class GroupWatch permits HostSide, MemberSide {
    private static final Runnable STOP = () -> { };

    final RendezvousOptions options;
    final int rank;
    final int size;
    final long intervalNanos;
    final long limitNanos;
    /** Rank 0's address as {@code host:port}, for messages; rank 0 puts in the port it bound. */
    String where;

    final Object lock = new Object();
    private final Object closeLock = new Object();
    /** Rank 0: the ranks that joined; other ranks: rank 0 alone. */
    final Map<Integer, Connection> peers = new TreeMap<>();
    final HeartbeatWatch watch;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Consumer<Fault>> listeners = new ArrayList<>();
    private final BlockingQueue<Runnable> notices = new LinkedBlockingQueue<>();
    private Thread notifier;
    byte[] payload = new byte[0];
    boolean started;
    boolean closing;
    private boolean closed;
    private boolean tickerStop;
    private volatile boolean silent;
    Fault fault;

    // barriers: the number of the latest barrier this rank entered, and of the latest released
    private int generation;
    int released;

    GroupWatch(RendezvousOptions options) {
        this.options = options;
        this.rank = options.rank();
        this.size = options.size();
        this.intervalNanos = options.heartbeatInterval().toNanos();
        this.limitNanos = options.silenceLimit().toNanos();
        this.watch = new HeartbeatWatch(limitNanos);
        this.where = Wire.where(options.address());
    }

    // ------------------------------------------------------------------------------------------------ by role

    /** Joins the group: returns once this rank has the payload and the group's threads run. */
    abstract void join() throws InterruptedException;

    /** Under the lock: this rank entered barrier {@code gen}; tells whom it concerns. */
    abstract void enterBarrier(int gen);

    /** Under the lock: the frame for barrier {@code gen} came from {@code c}. */
    abstract void barrierFrame(Connection c, int gen);

    /** Under the lock: why barrier {@code gen} was not released within {@code timeout}, for its one line. */
    abstract String notReleased(int gen, Duration timeout);

    /** Under the lock: the fault that {@code c}'s goodbye means for this rank, or null when it means none. */
    abstract Fault goodbyeFault(Connection c);

    /** A FAULT frame came: one that rank 0 relays. */
    abstract void faultFrame(Wire.Frame f) throws Wire.ProtocolException;

    /**
     * Under the lock: {@code c}'s reader ended while the rendezvous still waits for ranks; true when that is not a
     * fault, and has been dealt with.
     */
    abstract boolean endedWhileJoining(Connection c);

    /** Under the lock: true when a fault about {@code about}'s rank was raised before and counts only once. */
    abstract boolean raisedBefore(Connection about);

    /** Under the lock: the connections a fault this rank learned of is relayed to. */
    abstract List<Connection> relayTo();

    /**
     * Says goodbye to every peer, after waiting for theirs where the role waits.
     *
     * @param deadline when closing may stop waiting, counted from its start
     * @return until when to wait for the peers' streams to end
     */
    abstract long sayGoodbye(long deadline);

    /** Under the lock: starts the readers that the role's joining did not start. */
    abstract void startReaders();

    /** Under the lock: closes what only the role holds (a listening socket, connections still in a handshake). */
    abstract void closeRole();

    // ------------------------------------------------------------------------------------------------ the group

    /** {@return the first fault this rank learned of, or null} */
    Fault fault() {
        synchronized (lock) {
            return fault;
        }
    }

    /** Calls {@code listener} once, on the notifier, with the first fault; see {@link RankGroup#onFault}. */
    void onFault(Consumer<Fault> listener) {
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

    /** Waits until every rank reached its barrier of the same number; see {@link RankGroup#barrier}. */
    void barrier(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            if (closing) {
                throw new IllegalStateException("rank group of rank " + rank + " is closed");
            }
            int gen = ++generation;
            enterBarrier(gen);
            while (released < gen) {
                if (fault != null) {
                    throw new RendezvousException("barrier " + gen + ": " + fault.message(), fault, null);
                }
                if (closing) {
                    throw new RendezvousException("barrier " + gen + ": the group was closed");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new RendezvousException("barrier " + gen + ": " + notReleased(gen, timeout));
                }
                waitNanos(left);
            }
        }
    }

    /** Says goodbye and ends the group; see {@link RankGroup#close}. */
    void close() {
        synchronized (closeLock) {
            synchronized (lock) {
                if (closing) {
                    return;
                }
                closing = true;
                lock.notifyAll();
            }
            long deadline = sayGoodbye(System.nanoTime() + limitNanos);
            synchronized (lock) { // each end half-closes after a goodbye: the streams end cleanly, no reset
                while (peers.values().stream().anyMatch(c -> !c.ended) && waitUntil(deadline)) {
                    // woken by a reader that ended
                }
            }
            shutDown();
        }
    }

    /** Closes every socket and joins every thread the group started (not the caller's own). */
    void shutDown() {
        List<Thread> all;
        synchronized (lock) {
            closing = true;
            closed = true;
            tickerStop = true;
            lock.notifyAll();
            closeRole();
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

    /** Stops sending heartbeats, as a stopped process would. */
    void pauseHeartbeats() {
        silent = true;
    }

    // ------------------------------------------------------------------------------------------------ running

    /** Starts the notifier, the ticker and the role's readers, once this rank joined. */
    final void startThreads() {
        synchronized (lock) {
            notifier = startThread("faults", this::notifyListeners);
            startThread("heartbeat", this::tick);
            startReaders();
        }
    }

    /** Starts a daemon thread of the group, named {@code cudaipc4j-rendezvous-RANK-ROLE}, joined by the shutdown. */
    final Thread startThread(String role, Runnable body) {
        Thread t = new Thread(body, "cudaipc4j-rendezvous-" + rank + "-" + role);
        t.setDaemon(true);
        synchronized (lock) {
            threads.add(t);
        }
        t.start();
        return t;
    }

    /** Reads frames from one connection until it ends. */
    final void read(Connection c) {
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
                Fault left;
                synchronized (lock) {
                    watch.forget(c.rank);
                    left = goodbyeFault(c);
                    lock.notifyAll();
                }
                if (left != null) {
                    raise(left);
                }
            }
            case Wire.FAULT -> faultFrame(f);
            case Wire.BARRIER -> {
                int gen = Wire.parseBarrier(f);
                synchronized (lock) {
                    barrierFrame(c, gen);
                }
            }
            default -> {
                // HEARTBEAT, and frame types of later minor versions: only proof of life
            }
        }
    }

    private void ended(Connection c, IOException error) {
        Fault died;
        synchronized (lock) {
            c.ended = true;
            lock.notifyAll();
            if (endedWhileJoining(c)) {
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
    final void raise(Fault f) {
        List<Connection> relayTo;
        synchronized (lock) {
            Connection about = peers.get(f.rank());
            if (about != null && about.rank == f.rank()) {
                if (raisedBefore(about)) {
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
            relayTo = relayTo();
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
                long now = System.nanoTime();
                // after a stop, one tick at once rather than every tick it missed
                next = (next - now < -intervalNanos ? now - intervalNanos : next) + intervalNanos;
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
                over = closing ? List.of() : watch.check(System.nanoTime());
            }
            for (HeartbeatWatch.Silent s : over) {
                String silence = Durations.seconds(Duration.ofNanos(s.silentNanos()));
                raise(new Fault(s.rank(), Fault.Kind.HUNG, "rank " + s.rank() + " hung: silent for " + silence));
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
    final boolean waitUntil(long deadline) {
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
}
