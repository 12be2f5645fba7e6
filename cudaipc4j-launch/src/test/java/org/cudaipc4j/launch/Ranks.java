package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Ranks on threads of this JVM, over loopback, and the checks that nothing of them is left. A test class registers
 * one ({@code @RegisterExtension final Ranks ranks = new Ranks();}): after each test it closes every group that
 * joined and fails when a thread of one is still alive.
 */
final class Ranks implements AutoCloseable, AfterEachCallback {
    static final byte[] SECRET = "s3cret".getBytes(StandardCharsets.UTF_8);
    static final byte[] ID = new byte[128];
    static final int NCCL = 22809;
    static final Duration WAIT = Duration.ofSeconds(20);
    /** The silence limit of the test ranks: long enough that a stall of a loaded machine is no hang. */
    static final Duration SILENCE_LIMIT = Duration.ofSeconds(2);
    /** The heartbeat interval of the test ranks. */
    static final Duration INTERVAL = Duration.ofMillis(100);
    /**
     * How soon every rank must learn of a silent rank: the limit, one heartbeat (the check that finds it comes at
     * most one interval late) and half a second for the relay and a loaded machine.
     */
    static final Duration DETECTED_WITHIN = SILENCE_LIMIT.plus(INTERVAL).plusMillis(500);

    static {
        for (int i = 0; i < ID.length; i++) {
            ID[i] = (byte) (i * 7 + 1);
        }
    }

    private final List<CompletableFuture<RankGroup>> started = new ArrayList<>();

    /** The options of rank {@code rank} of {@code size} at {@code port}, with the test timings. */
    static RendezvousOptions.Builder options(int rank, int size, int port) {
        return RendezvousOptions.builder(rank, size, new InetSocketAddress("127.0.0.1", port))
                .secret(SECRET).ncclVersion(NCCL).payload(ID::clone).joinTimeout(WAIT)
                .heartbeatInterval(INTERVAL).silenceLimit(SILENCE_LIMIT);
    }

    /** Starts rank 0 of {@code size} on a free port; returns the port once it listens. */
    int host(int size, UnaryOperator<RendezvousOptions.Builder> change) {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        RendezvousOptions o = change.apply(options(0, size, 0).onBound(a -> port.complete(a.getPort()))).build();
        CompletableFuture<RankGroup> g = start(o);
        g.whenComplete((r, e) -> {
            if (e != null) {
                port.completeExceptionally(e);
            }
        });
        return get(port);
    }

    int host(int size) {
        return host(size, b -> b);
    }

    /** Something a test runs on a thread of its own. */
    interface Call<T> {
        T call() throws Exception;
    }

    /** Runs {@code call} on a new thread (not a shared pool, which may have one thread on a small machine). */
    static <T> CompletableFuture<T> onThread(Call<T> call) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(call.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "test-call");
        t.start();
        return f;
    }

    /** Starts a rank on its own thread. */
    CompletableFuture<RankGroup> start(RendezvousOptions o) {
        CompletableFuture<RankGroup> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(Rendezvous.join(o));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "test-rank-" + o.rank());
        t.start();
        synchronized (started) {
            started.add(f);
        }
        return f;
    }

    CompletableFuture<RankGroup> member(int rank, int size, int port) {
        return member(rank, size, port, b -> b);
    }

    /** Starts rank {@code rank} of {@code size} at {@code port} with the test options as {@code change} makes them. */
    CompletableFuture<RankGroup> member(int rank, int size, int port, UnaryOperator<RendezvousOptions.Builder> change) {
        return start(change.apply(options(rank, size, port)).build());
    }

    /** The first rank started (rank 0). */
    CompletableFuture<RankGroup> first() {
        return started.get(0);
    }

    /** Rank 0's group (the first one started). */
    RankGroup rank0() {
        return get(started.get(0));
    }

    static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("nothing within " + WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The exception {@code f} failed with. */
    static Throwable failure(CompletableFuture<?> f) {
        try {
            Object r = f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return fail("expected a failure, got " + r);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("nothing within " + WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Closes every group that joined, all at once (as ranks finishing together do). */
    @Override
    public void close() {
        List<CompletableFuture<RankGroup>> all;
        synchronized (started) {
            all = new ArrayList<>(started);
        }
        List<Thread> closers = new ArrayList<>();
        for (var f : all) {
            RankGroup g;
            try {
                g = f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                continue; // it failed to join: nothing of it is left to close
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            Thread t = new Thread(g::close);
            t.start();
            closers.add(t);
        }
        for (Thread t : closers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** After each test: closes every group that joined and checks that none of their threads is left. */
    @Override
    public void afterEach(ExtensionContext context) {
        close();
        assertNoThreadsLeft();
    }

    /** A fault listener's first call, as a future. */
    static CompletableFuture<Fault> faultOf(RankGroup g) {
        CompletableFuture<Fault> f = new CompletableFuture<>();
        g.onFault(f::complete);
        return f;
    }

    /** Fails when a thread of a rank group is still alive. */
    static void assertNoThreadsLeft() {
        List<String> left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(n -> n.startsWith("cudaipc4j-rendezvous-")).toList();
        assertEquals(List.of(), left, "threads of closed rank groups");
    }

    /** A latch that a listener counts down. */
    static CountDownLatch latch(int n) {
        return new CountDownLatch(n);
    }
}
