package org.cudaipc4j.nccl;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Ends a rank fast when its communicator cannot go on. A platform thread polls, every period, the communicator's
 * asynchronous error and a source of peer faults (the rendezvous's heartbeat: a rank that died, was stopped or
 * hangs); on the first of either it hands one line naming the rank and what happened to its action, once, and
 * aborts the communicator (so every wait on it throws {@link CommunicatorAbortedException}).
 *
 * <p>NCCL alone notices a dead peer only where it talks to it directly, and never a stopped one; the heartbeat
 * covers the rest. {@link #exitProcess(PrintStream, Duration)} is the action of a rank program: print the line,
 * let the main thread unwind, and end the process with status 1 if it has not ended by then.
 */
public final class Watchdog implements AutoCloseable {
    /** How often it polls when not told otherwise. */
    public static final Duration DEFAULT_PERIOD = Duration.ofMillis(100);

    private final Communicator communicator;
    private final Supplier<Optional<String>> peerFaults;
    private final Duration period;
    private final Consumer<String> action;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private volatile String fired;

    private Watchdog(Communicator communicator, Supplier<Optional<String>> peerFaults, Duration period,
                     Consumer<String> action) {
        this.communicator = communicator;
        this.peerFaults = peerFaults;
        this.period = period;
        this.action = action;
        this.thread = Thread.ofPlatform().daemon().name("cudaipc4j-nccl-watchdog-rank-" + communicator.rank())
                .unstarted(this::run);
    }

    /**
     * Starts watching {@code communicator}.
     *
     * @param peerFaults a one-line description of a peer's fault once there is one (empty while all are well)
     * @param period how often to poll
     * @param action what to do with the line; called once, on the watchdog's thread, before the abort of a peer's
     *     fault (after it for an error NCCL reported, which aborts as it is found)
     * @param communicator the communicator to watch and abort
     * @return the running watchdog; close it to stop
     */
    public static Watchdog start(Communicator communicator, Supplier<Optional<String>> peerFaults, Duration period,
                                 Consumer<String> action) {
        Objects.requireNonNull(peerFaults, "peerFaults");
        Objects.requireNonNull(action, "action");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("a watchdog's period must be positive, got " + period);
        }
        Watchdog watchdog = new Watchdog(communicator, peerFaults, period, action);
        watchdog.thread.start();
        return watchdog;
    }

    /**
     * {@return the action of a rank program: prints {@code cudaipc4j: watchdog: LINE} on {@code err}, then halts the
     * process with status 1 after {@code grace} unless it ended by itself meanwhile (its main thread, woken by the
     * abort, closes what it holds and exits 1)}
     *
     * @param err where the line goes
     * @param grace how long the main thread has to end by itself
     */
    public static Consumer<String> exitProcess(PrintStream err, Duration grace) {
        return line -> {
            err.println("cudaipc4j: watchdog: " + line);
            err.flush();
            Thread.ofPlatform().daemon().name("cudaipc4j-nccl-watchdog-exit").start(() -> {
                try {
                    Thread.sleep(grace);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Runtime.getRuntime().halt(1);
            });
        };
    }

    /** {@return the line it acted on, or empty while it has not fired} */
    public Optional<String> fired() {
        return Optional.ofNullable(fired);
    }

    private void run() {
        try {
            while (!stop.await(period.toNanos(), TimeUnit.NANOSECONDS)) {
                if (communicator.isClosed()) {
                    return;
                }
                Optional<String> fault = peerFaults.get();
                if (fault.isPresent()) {
                    // The action first: an abort can take a while (NCCL waits for its own threads), and a rank
                    // must end within a bounded time even then.
                    String line = "rank " + communicator.rank() + " ends: " + fault.get();
                    fire(line);
                    communicator.abort(line);
                    return;
                }
                Optional<NcclCallException> error = communicator.pollError();
                if (error.isPresent()) {
                    fire("rank " + communicator.rank() + " ends: " + error.get().getMessage());
                    return;
                }
                if (communicator.abortReason().isPresent()) {
                    return; // aborted by its own deadline: the caller already has the reason
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            fire("rank " + communicator.rank() + " ends: the watchdog failed: " + e);
        }
    }

    private void fire(String line) {
        fired = line;
        action.accept(line);
    }

    /** Stops watching and waits for its thread to end. Idempotent. */
    @Override
    public void close() {
        stop.countDown();
        if (Thread.currentThread() != thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
