package org.cudaipc4j.launch;

import static org.cudaipc4j.launch.Ranks.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.cudaipc4j.coord.IdleStrategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rank 0 in a process of its own, Java's and Python's, while a stranger without the secret floods it
 * (python/tests/rendezvous_flood.py): silent and slow connections renewed at once when dropped, and garbage frames.
 * The real ranks, of both languages, must get in within 2 s of the last one's start, and rank 0 must not hold more
 * than its places' worth of descriptors nor grow its memory.
 */
class RendezvousFloodTest {
    /**
     * The flood's size against the one measured for docs/multinode.md (200 silent and 200 slow connections, 1000
     * garbage frames, at least 100 connections opened a second): a quarter here, still more than rank 0's 64 places;
     * {@code CUDAIPC4J_TEST_FLOOD_SCALE=1} in the environment runs it whole.
     */
    private static final double SCALE = Double.parseDouble(Optional.ofNullable(
            System.getenv("CUDAIPC4J_TEST_FLOOD_SCALE")).orElse("0.25"));
    private static final int SIZE = 4;
    private static final Duration JOINED_WITHIN = Duration.ofSeconds(2);
    private static final long RSS_GROWTH_KIB = 64 * 1024;
    /** Descriptors rank 0 may hold beyond its count before listening, its places and its ranks. */
    private static final int SLACK = 50;

    @RegisterExtension
    final Ranks ranks = new Ranks();

    @BeforeAll
    static void needPython() {
        RankProcess.assumePython();
    }

    @Test
    void aJavaRankZeroLetsJavaAndPythonRanksInThroughAFlood() {
        try (RankProcess zero = RankProcess.java(0, SIZE, 0, "--descriptors")) {
            throughAFlood(zero, 1);
        }
    }

    @Test
    void aPythonRankZeroLetsJavaAndPythonRanksInThroughAFlood() {
        try (RankProcess zero = RankProcess.python(0, SIZE, 0, "--descriptors")) {
            throughAFlood(zero, 2);
        }
    }

    /** Floods {@code zero}, then starts the ranks together: {@code pythonRank} in Python, the others in Java. */
    private void throughAFlood(RankProcess zero, int pythonRank) {
        int before = Integer.parseInt(zero.expectRest("descriptors "));
        int port = zero.boundPort();
        long rssBefore = rssKib(zero.pid());
        try (Sampler sampler = new Sampler(zero.pid());
                RankProcess flood = RankProcess.pythonScript("rendezvous_flood.py", "--port", Integer.toString(port),
                        "--silent", scaled(200), "--slow", scaled(200), "--garbage", scaled(1000), "--rate",
                        scaled(100))) {
            flood.expect("flooding");
            List<CompletableFuture<Long>> joinedAt = new ArrayList<>();
            List<CompletableFuture<RankGroup>> javaRanks = new ArrayList<>();
            RankProcess python = RankProcess.python(pythonRank, SIZE, port, "--descriptors");
            try (python) {
                // its line comes as it starts to join: the interpreter's own start, slow on a flooded machine, is
                // no part of the rendezvous
                long lastStarted = python.expect("descriptors ").at();
                for (int r = 1; r < SIZE; r++) {
                    if (r != pythonRank) {
                        CompletableFuture<RankGroup> g = ranks.member(r, SIZE, port);
                        javaRanks.add(g);
                        joinedAt.add(g.thenApply(x -> System.nanoTime()));
                        lastStarted = System.nanoTime();
                    }
                }
                joinedAt.add(CompletableFuture.completedFuture(python.expect("joined ").at()));
                joinedAt.add(CompletableFuture.completedFuture(zero.expect("joined ").at()));
                long last = lastStarted;
                List<Long> tookMillis = joinedAt.stream().map(at -> (get(at) - last) / 1_000_000).toList();
                long slowest = tookMillis.stream().mapToLong(Long::longValue).max().orElseThrow() * 1_000_000;
                assertTrue(slowest < JOINED_WITHIN.toNanos(), "the ranks (Java, Python, rank 0) joined " + tookMillis
                        + " ms after the last one started, under a flood of " + SCALE + " times the measured one");
                sampler.close();
                System.out.printf("rank 0 (pid %d) under a flood of %s times the measured one: all joined %d ms after"
                        + " the last rank started; at most %d descriptors (%d before listening); resident %d KiB,"
                        + " at most %d KiB while flooded%n", zero.pid(), SCALE, slowest / 1_000_000,
                        sampler.descriptors.get(), before, rssBefore, sampler.rssKib.get());
                assertTrue(sampler.descriptors.get() <= before + Handshakes.MAX + SIZE + SLACK, "rank 0 held "
                        + sampler.descriptors.get() + " descriptors, " + before + " before it listened");
                long grew = sampler.rssKib.get() - rssBefore;
                assertTrue(grew < RSS_GROWTH_KIB, "rank 0's memory grew by " + grew + " KiB");
                flood.endInput();
                String[] made = flood.expectRest("stopped ").split(" "); // opened, in seconds, garbage frames
                assertTrue(Long.parseLong(made[0]) >= Double.parseDouble(made[1]) * 100 * SCALE,
                        String.join(" ", made));
                assertTrue(Long.parseLong(made[2]) >= 1000 * SCALE, String.join(" ", made));
                System.out.printf("the flood opened %s connections in %s s and sent %s garbage frames%n", made[0],
                        made[1], made[2]);
                python.send("close");
                zero.send("close");
                ranks.close();
                python.expect("closed");
                zero.expect("closed");
                for (CompletableFuture<RankGroup> g : javaRanks) {
                    assertArrayEquals(Ranks.ID, get(g).payload());
                    assertEquals(Optional.empty(), get(g).fault());
                }
            }
        }
    }

    private static String scaled(int n) {
        return Long.toString(Math.round(n * SCALE));
    }

    /** The most descriptors and the largest resident size a process had while sampled, every 5 ms. */
    private static final class Sampler implements AutoCloseable {
        final AtomicLong descriptors = new AtomicLong();
        final AtomicLong rssKib = new AtomicLong();
        private final Thread thread;
        private volatile boolean stop;

        Sampler(long pid) {
            thread = new Thread(() -> {
                IdleStrategy every = IdleStrategy.periodic(Duration.ofMillis(5));
                while (!stop) {
                    descriptors.accumulateAndGet(descriptorCount(pid), Math::max);
                    rssKib.accumulateAndGet(rssKib(pid), Math::max);
                    every.idle();
                }
            }, "test-sampler");
            thread.start();
        }

        @Override
        public void close() {
            stop = true;
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long descriptorCount(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.count();
        } catch (NoSuchFileException e) {
            return 0; // it ended
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long rssKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return 0;
        } catch (NoSuchFileException e) {
            return 0; // it ended
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
