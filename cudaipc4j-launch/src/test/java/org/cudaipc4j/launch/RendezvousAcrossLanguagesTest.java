package org.cudaipc4j.launch;

import static org.cudaipc4j.launch.Ranks.failure;
import static org.cudaipc4j.launch.Ranks.faultOf;
import static org.cudaipc4j.launch.Ranks.get;
import static org.cudaipc4j.launch.Ranks.options;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Java and Python ranks in one group over loopback, each side as rank 0, and real processes killed (SIGKILL) or
 * stopped (SIGSTOP): every other rank learns it from the silence watch (limit 1 s here).
 */
class RendezvousAcrossLanguagesTest {
    /** The silence limit (1 s here), one heartbeat (200 ms) and half a second for the relay and a loaded machine. */
    private static final long DETECTED_WITHIN = Duration.ofMillis(1000 + 200 + 500).toNanos();

    @RegisterExtension
    final Ranks ranks = new Ranks();

    @BeforeAll
    static void needPython() {
        RankProcess.assumePython();
    }

    private static RendezvousOptions.Builder timings(RendezvousOptions.Builder b) {
        return b.heartbeatInterval(Duration.ofMillis(200)).silenceLimit(Duration.ofSeconds(1));
    }

    @Test
    void aJavaRankZeroServesPythonRanks() {
        int port = ranks.host(3, RendezvousAcrossLanguagesTest::timings);
        try (RankProcess one = RankProcess.python(1, 3, port); RankProcess two = RankProcess.python(2, 3, port)) {
            assertEquals(Wire.hex(Ranks.ID), one.expectRest("joined "));
            assertEquals(Wire.hex(Ranks.ID), two.expectRest("joined "));
            RankGroup zero = ranks.rank0();
            CompletableFuture<RankGroup> met = Ranks.onThread(() -> {
                zero.barrier(Ranks.WAIT);
                return zero;
            });
            one.send("barrier");
            two.send("barrier");
            one.expect("barrier ok");
            two.expect("barrier ok");
            get(met);
            one.send("close");
            two.send("close");
            zero.close(); // closing together: rank 0 waits for the goodbyes
            one.expect("closed");
            two.expect("closed");
            assertEquals(0, one.exitCode(Ranks.WAIT));
            assertEquals(0, two.exitCode(Ranks.WAIT));
            assertEquals(Optional.empty(), zero.fault());
        }
    }

    @Test
    void aPythonRankZeroServesJavaRanks() {
        try (RankProcess zero = RankProcess.python(0, 3, 0)) {
            int port = zero.boundPort();
            CompletableFuture<RankGroup> one = ranks.member(1, 3, port, RendezvousAcrossLanguagesTest::timings);
            CompletableFuture<RankGroup> two = ranks.member(2, 3, port, RendezvousAcrossLanguagesTest::timings);
            zero.expect("joined " + Wire.hex(Ranks.ID));
            assertArrayEquals(Ranks.ID, get(one).payload());
            assertArrayEquals(Ranks.ID, get(two).payload());
            zero.send("barrier");
            List<CompletableFuture<RankGroup>> met = List.of(one, two).stream().map(f -> Ranks.onThread(() -> {
                get(f).barrier(Ranks.WAIT);
                return get(f);
            })).toList();
            met.forEach(Ranks::get);
            zero.expect("barrier ok");
            zero.send("close");
            ranks.close();
            zero.expect("closed");
            assertEquals(0, zero.exitCode(Ranks.WAIT));
            assertEquals(Optional.empty(), get(one).fault());
            assertEquals(Optional.empty(), get(two).fault());
        }
    }

    @Test
    void aKilledPythonRankIsReportedDiedByEveryRank() {
        faultOfAPythonRank("KILL", Fault.Kind.DIED);
    }

    @Test
    void aStoppedPythonRankIsReportedHungByEveryRank() {
        faultOfAPythonRank("STOP", Fault.Kind.HUNG);
    }

    private void faultOfAPythonRank(String signal, Fault.Kind kind) {
        int port = ranks.host(3, RendezvousAcrossLanguagesTest::timings);
        try (RankProcess one = RankProcess.python(1, 3, port); RankProcess two = RankProcess.python(2, 3, port)) {
            one.expect("joined ");
            two.expect("joined ");
            CompletableFuture<Fault> at0 = faultOf(ranks.rank0());
            long start = System.nanoTime();
            two.signal(signal);
            Fault f = get(at0);
            long seen0 = System.nanoTime();
            RankProcess.Line l = one.expect("fault 2 " + kind + " rank 2 ");
            assertEquals(2, f.rank());
            assertEquals(kind, f.kind());
            assertEquals("fault 2 " + kind + " " + f.message(), l.text());
            assertTrue(seen0 - start < DETECTED_WITHIN, "rank 0 took " + (seen0 - start) / 1_000_000 + " ms");
            assertTrue(l.at() - start < DETECTED_WITHIN, "rank 1 took " + (l.at() - start) / 1_000_000 + " ms");
        }
    }

    @Test
    void aKilledPythonRankZeroIsReportedDiedByEveryRank() {
        faultOfAPythonRankZero("KILL", Fault.Kind.DIED);
    }

    @Test
    void aStoppedPythonRankZeroIsReportedHungByEveryRank() {
        faultOfAPythonRankZero("STOP", Fault.Kind.HUNG);
    }

    private void faultOfAPythonRankZero(String signal, Fault.Kind kind) {
        try (RankProcess zero = RankProcess.python(0, 3, 0)) {
            int port = zero.boundPort();
            CompletableFuture<RankGroup> one = ranks.member(1, 3, port, RendezvousAcrossLanguagesTest::timings);
            CompletableFuture<RankGroup> two = ranks.member(2, 3, port, RendezvousAcrossLanguagesTest::timings);
            zero.expect("joined ");
            CompletableFuture<Fault> at1 = faultOf(get(one));
            CompletableFuture<Fault> at2 = faultOf(get(two));
            long start = System.nanoTime();
            zero.signal(signal);
            for (CompletableFuture<Fault> at : List.of(at1, at2)) {
                Fault f = get(at);
                assertTrue(System.nanoTime() - start < DETECTED_WITHIN, "took too long: " + f);
                assertEquals(0, f.rank());
                assertEquals(kind, f.kind());
            }
            zero.kill(); // before the Java ranks close: a stopped rank 0 would hold their goodbyes
        }
    }

    @Test
    void aPythonRankZeroResumedAfterAStopReadsTheGoodbyesBeforeBlamingAnyone() {
        try (RankProcess zero = RankProcess.python(0, 3, 0)) {
            goodbyesWhileRankZeroIsStopped(zero);
        }
    }

    @Test
    void aJavaRankZeroResumedAfterAStopReadsTheGoodbyesBeforeBlamingAnyone() {
        try (RankProcess zero = RankProcess.java(0, 3, 0)) {
            goodbyesWhileRankZeroIsStopped(zero);
        }
    }

    /**
     * Stops rank 0, lets the other ranks close (each waits the silence limit for rank 0's end, which a stopped rank
     * 0 never sends), resumes it: the goodbyes wait unread in its sockets, and it blames nobody for their silence.
     */
    private void goodbyesWhileRankZeroIsStopped(RankProcess zero) {
        int port = zero.boundPort();
        CompletableFuture<RankGroup> one = ranks.member(1, 3, port, RendezvousAcrossLanguagesTest::timings);
        CompletableFuture<RankGroup> two = ranks.member(2, 3, port, RendezvousAcrossLanguagesTest::timings);
        zero.expect("joined ");
        get(one);
        get(two);
        zero.signal("STOP");
        ranks.close();
        zero.signal("CONT");
        zero.send("close");
        assertEquals("closed", zero.expect("").text(), "rank 0's first line after it resumed");
        assertEquals(0, zero.exitCode(Ranks.WAIT));
    }

    @Test
    void aJavaRankOnAnotherNcclIsRefusedByAPythonRankZero() {
        try (RankProcess zero = RankProcess.python(0, 2, 0)) {
            int port = zero.boundPort();
            Throwable e = failure(ranks.start(options(1, 2, port).ncclVersion(22803).build()));
            String line = "rendezvous on 127.0.0.1:" + port + ": rank 1 has NCCL 2.28.3, rank 0 has NCCL 2.28.9:"
                    + " all ranks must load the same NCCL";
            assertEquals(line, e.getMessage());
            assertEquals(line, zero.expectRest("error "));
            assertEquals(3, zero.exitCode(Ranks.WAIT));
        }
    }

    @Test
    void aPythonRankWithTheWrongSecretIsRefusedByAJavaRankZero() {
        int port = ranks.host(2);
        try (RankProcess stranger = RankProcess.python(1, 2, port, "--secret", "guess")) {
            assertEquals("rendezvous on 127.0.0.1:" + port + ": wrong secret", stranger.expectRest("error "));
        }
        try (RankProcess one = RankProcess.python(1, 2, port)) {
            one.expect("joined ");
            one.send("close");
            ranks.close();
            one.expect("closed");
        }
    }
}
