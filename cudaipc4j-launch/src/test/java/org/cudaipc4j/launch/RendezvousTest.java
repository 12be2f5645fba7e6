package org.cudaipc4j.launch;

import static org.cudaipc4j.launch.Ranks.failure;
import static org.cudaipc4j.launch.Ranks.faultOf;
import static org.cudaipc4j.launch.Ranks.get;
import static org.cudaipc4j.launch.Ranks.options;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.cudaipc4j.testing.OpenDescriptors;
import org.cudaipc4j.testing.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The rendezvous and the group's watch, with ranks on threads of this JVM over loopback. */
class RendezvousTest {
    @RegisterExtension
    final Ranks ranks = new Ranks();

    @Test
    void everyRankGetsThePayloadMeetsAtBarriersAndClosesWithoutFaultsOrLeftovers() throws Exception {
        List<String> socketsBefore = OpenDescriptors.sockets();
        int port = ranks.host(4);
        List<CompletableFuture<RankGroup>> members = new ArrayList<>();
        for (int r = 1; r < 4; r++) {
            members.add(ranks.member(r, 4, port));
        }
        List<RankGroup> groups = new ArrayList<>();
        groups.add(ranks.rank0());
        members.forEach(m -> groups.add(get(m)));
        for (RankGroup g : groups) {
            assertArrayEquals(Ranks.ID, g.payload());
            assertEquals(4, g.size());
        }
        for (int round = 0; round < 3; round++) {
            List<CompletableFuture<RankGroup>> done = new ArrayList<>();
            for (RankGroup g : groups) {
                done.add(Ranks.onThread(() -> {
                    g.barrier(Ranks.WAIT);
                    return g;
                }));
            }
            done.forEach(Ranks::get);
        }
        ranks.close(); // all at once: rank 0 waits for the goodbyes, nobody sees a fault
        for (RankGroup g : groups) {
            assertEquals(Optional.empty(), g.fault(), g.toString());
        }
        Ranks.assertNoThreadsLeft();
        assertEquals(socketsBefore, OpenDescriptors.sockets(), "sockets left open");
    }

    @Test
    void ranksStartedBeforeRankZeroWaitForIt() {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // free now; rank 0 binds it with SO_REUSEADDR after the others start
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        CompletableFuture<RankGroup> one = ranks.member(1, 2, port);
        ranks.start(options(0, 2, port).build());
        assertArrayEquals(Ranks.ID, get(one).payload());
    }

    @Test
    void rankZeroNamesTheRanksThatDidNotArriveAndTellsThoseThatDid() {
        CompletableFuture<Integer> bound = new CompletableFuture<>();
        // long enough for rank 1 to join on a loaded machine: the line must name only those that never came
        CompletableFuture<RankGroup> host = ranks.start(options(0, 4, 0).joinTimeout(Duration.ofSeconds(4))
                .onBound(a -> bound.complete(a.getPort())).build());
        int port = get(bound);
        CompletableFuture<RankGroup> one = ranks.member(1, 4, port);
        String line = "rendezvous on " + "127.0.0.1" + ":" + port
                + ": ranks 2, 3 of 4 did not arrive within 4 s";
        assertEquals(line, failure(host).getMessage());
        assertEquals(line, failure(one).getMessage());
    }

    @Test
    void aPortTakenIsOneLineAndLeavesNoSocketOpen() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            List<String> before = OpenDescriptors.sockets();
            Throwable e = failure(ranks.start(options(0, 2, port).build()));
            assertInstanceOf(RendezvousException.class, e);
            assertEquals("rendezvous on 127.0.0.1:" + port + ": cannot listen on port " + port + " (Address already"
                    + " in use): set CUDAIPC4J_RENDEZVOUS=host:port to an address of this host with a free port",
                    e.getMessage());
            assertEquals(before, OpenDescriptors.sockets(),
                    "the socket that could not listen is closed, not left to a cleaner");
        }
    }

    @Test
    void aRankWithoutRankZeroSaysWhoDidNotAnswer() {
        int port = Ports.freeLoopbackPort();
        Throwable e = failure(ranks.start(options(1, 2, port).joinTimeout(Duration.ofMillis(300)).build()));
        assertInstanceOf(RendezvousException.class, e);
        assertTrue(e.getMessage().startsWith("rank 0 at " + "127.0.0.1" + ":"
                + port + " did not answer within 300 ms"), e.getMessage());
    }

    @Test
    void aWrongSecretIsRefusedAndRankZeroKeepsWaiting() {
        int port = ranks.host(2);
        Throwable e = failure(ranks.start(options(1, 2, port).secret("guess".getBytes()).build()));
        assertTrue(e.getMessage().endsWith(": wrong secret"), e.getMessage());
        assertArrayEquals(Ranks.ID, get(ranks.member(1, 2, port)).payload());
    }

    @Test
    void wrongSizeRankOutOfRangeAndDuplicateRankAreRefusedOneByOne() throws IOException {
        int port = ranks.host(3);
        assertTrue(failure(ranks.start(options(2, 4, port).build())).getMessage()
                .endsWith("rank 2 was started for 4 ranks, rank 0 for 3"));
        assertTrue(RawPeer.join(port, 7, 3, Ranks.NCCL, Ranks.SECRET)
                .endsWith("rank 7 is out of range: ranks 1 to 2 join rank 0"));
        assertTrue(RawPeer.join(port, 0, 3, Ranks.NCCL, Ranks.SECRET)
                .endsWith("rank 0 is out of range: ranks 1 to 2 join rank 0"));
        try (Socket one = RawPeer.welcomed(port, 1, 3, Ranks.NCCL, Ranks.SECRET)) {
            assertTrue(RawPeer.join(port, 1, 3, Ranks.NCCL, Ranks.SECRET).endsWith("rank 1 has already joined"));
            CompletableFuture<RankGroup> two = ranks.member(2, 3, port);
            Wire.Frame start = Wire.read(one.getInputStream());
            assertEquals(Wire.START, start.type());
            assertArrayEquals(Ranks.ID, start.body());
            assertArrayEquals(Ranks.ID, get(two).payload());
            one.getOutputStream().write(Wire.frame(Wire.GOODBYE));
        }
    }

    @Test
    void garbageIsDroppedWithoutHarm() throws IOException {
        int port = ranks.host(2);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout((int) Ranks.WAIT.toMillis());
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals(-1, s.getInputStream().read(), "garbage gets no answer, only the end of the stream");
        }
        assertArrayEquals(Ranks.ID, get(ranks.member(1, 2, port)).payload());
    }

    @Test
    void aNewerProtocolVersionIsRefusedInOneLineNamingBoth() throws IOException {
        int port = ranks.host(2);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout((int) Ranks.WAIT.toMillis());
            s.getOutputStream().write(ByteBuffer.allocate(12).put(Wire.MAGIC).putShort((short) 2).putShort((short) 3)
                    .array());
            int[] theirs = Wire.readPreamble(s.getInputStream());
            assertEquals(1, theirs[0]);
            Wire.Frame f = Wire.read(s.getInputStream());
            assertEquals(Wire.REFUSE, f.type());
            assertTrue(f.text().matches("rendezvous protocol 2\\.3 refused: rank 0 at .* speaks 1\\.0"), f.text());
        }
        assertArrayEquals(Ranks.ID, get(ranks.member(1, 2, port)).payload());
    }

    @Test
    void aRankZeroOfAnotherMajorVersionIsRefusedByTheRank() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RankGroup> one = ranks.member(1, 2, fake.getLocalPort());
            try (Socket s = fake.accept()) {
                Wire.readPreamble(s.getInputStream());
                s.getOutputStream().write(ByteBuffer.allocate(12).put(Wire.MAGIC).putShort((short) 2)
                        .putShort((short) 0).array());
                assertEquals("rank 0 at " + "127.0.0.1" + ":"
                        + fake.getLocalPort() + " speaks rendezvous protocol 2.0, rank 1 speaks 1.0",
                        failure(one).getMessage());
            }
        }
    }

    @Test
    void anOversizedFrameIsRefusedAndRankZeroKeepsWaiting() throws IOException {
        int port = ranks.host(2);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout((int) Ranks.WAIT.toMillis());
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(Wire.preamble());
            Wire.readPreamble(in);
            assertEquals(Wire.CHALLENGE, Wire.read(in).type());
            out.write(ByteBuffer.allocate(5).putInt(1 << 30).put((byte) Wire.JOIN).array());
            Wire.Frame f = Wire.read(in);
            assertEquals(Wire.REFUSE, f.type());
            assertTrue(f.text().endsWith("frame of 1073741824 bytes refused: the limit is 65536"), f.text());
        }
        assertArrayEquals(Ranks.ID, get(ranks.member(1, 2, port)).payload());
    }

    @Test
    void aStrangerWhoSaysNothingIsDroppedAtItsDeadlineWhileTheRanksJoin() throws IOException {
        int port = ranks.host(2, b -> b.handshakeTimeout(Duration.ofSeconds(2)));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout((int) Ranks.WAIT.toMillis());
            CompletableFuture<RankGroup> one = ranks.member(1, 2, port);
            assertArrayEquals(Ranks.ID, get(one).payload()); // not held up by the stranger
            assertEquals(-1, s.getInputStream().read(), "the silent stranger is dropped");
        }
    }

    @Test
    void aStrangerWhoSaysNothingIsDroppedAtItsDeadlineWhileRankZeroWaits() throws IOException {
        int port = ranks.host(2, b -> b.handshakeTimeout(Duration.ofSeconds(2)));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout((int) Ranks.WAIT.toMillis());
            assertEquals(-1, s.getInputStream().read(), "the silent stranger is dropped");
        }
        assertArrayEquals(Ranks.ID, get(ranks.member(1, 2, port)).payload());
    }

    @Test
    void anNcclVersionMismatchEndsTheRendezvousWithOneLineNamingBoth() throws IOException {
        int port = ranks.host(3);
        try (Socket one = RawPeer.welcomed(port, 1, 3, Ranks.NCCL, Ranks.SECRET)) {
            CompletableFuture<RankGroup> two = ranks.start(options(2, 3, port).ncclVersion(22803).build());
            String line = "rendezvous on " + "127.0.0.1" + ":" + port
                    + ": rank 2 has NCCL 2.28.3, rank 0 has NCCL 2.28.9: all ranks must load the same NCCL";
            assertEquals(line, failure(two).getMessage());
            assertEquals(line, failure(ranks.first()).getMessage());
            Wire.Frame told = Wire.read(one.getInputStream());
            assertEquals(Wire.REFUSE, told.type());
            assertEquals(line, told.text());
        }
    }

    @Test
    void aPayloadOverTheLimitEndsTheRendezvous() {
        int port = ranks.host(2, b -> b.payload(() -> new byte[4097]));
        Throwable e = failure(ranks.member(1, 2, port));
        assertTrue(e.getMessage().endsWith("rank 0's payload of 4097 bytes is over the limit of 4096 bytes"),
                e.getMessage());
    }

    @Test
    void aDeadRankIsReportedToEveryRank() {
        List<RankGroup> g = group(3);
        var at0 = faultOf(g.get(0));
        var at1 = faultOf(g.get(1));
        g.get(2).abandon();
        Fault f0 = get(at0);
        Fault f1 = get(at1);
        assertEquals(new Fault(2, Fault.Kind.DIED, "rank 2 died: its connection closed without a goodbye"), f0);
        assertEquals(f0, f1);
        assertEquals(Optional.of(f0), g.get(1).fault());
        RendezvousException e = assertThrows(RendezvousException.class, () -> g.get(1).barrier(Ranks.WAIT));
        assertEquals(Optional.of(f0), e.fault());
        assertEquals("barrier 1: rank 2 died: its connection closed without a goodbye", e.getMessage());
    }

    @Test
    void aSilentRankIsReportedHungToEveryRank() {
        List<RankGroup> g = group(3);
        var at0 = faultOf(g.get(0));
        var at1 = faultOf(g.get(1));
        long start = System.nanoTime();
        g.get(2).pauseHeartbeats();
        Fault f0 = get(at0);
        Fault f1 = get(at1);
        long took = System.nanoTime() - start;
        assertEquals(2, f0.rank());
        assertEquals(Fault.Kind.HUNG, f0.kind());
        assertSilentForAtLeastTheLimit(f0.message(), "rank 2 hung: silent for ");
        assertEquals(f0, f1);
        assertTrue(took < Ranks.DETECTED_WITHIN.toNanos(), "took " + took / 1_000_000 + " ms");
    }

    @Test
    void aSilentRankZeroIsReportedHungByEveryRank() {
        List<RankGroup> g = group(3);
        var at1 = faultOf(g.get(1));
        var at2 = faultOf(g.get(2));
        g.get(0).pauseHeartbeats();
        for (Fault f : List.of(get(at1), get(at2))) {
            assertEquals(0, f.rank());
            assertEquals(Fault.Kind.HUNG, f.kind());
            assertSilentForAtLeastTheLimit(f.message(), "rank 0 hung: silent for ");
        }
    }

    @Test
    void aDeadRankZeroIsReportedByEveryRank() {
        List<RankGroup> g = group(3);
        var at1 = faultOf(g.get(1));
        var at2 = faultOf(g.get(2));
        g.get(0).abandon();
        assertEquals(new Fault(0, Fault.Kind.DIED, "rank 0 died: its connection closed without a goodbye"),
                get(at1));
        assertEquals(Fault.Kind.DIED, get(at2).kind());
    }

    @Test
    void rankZeroClosingFirstWaitsForTheGoodbyesThenLeaves() {
        List<RankGroup> g = group(2);
        var at1 = faultOf(g.get(1));
        long start = System.nanoTime();
        g.get(0).close(); // rank 1 never says goodbye: rank 0 waits the silence limit, then leaves
        assertTrue(System.nanoTime() - start >= Ranks.SILENCE_LIMIT.toNanos());
        assertEquals(new Fault(0, Fault.Kind.LEFT, "rank 0 left the group before rank 1 closed"), get(at1));
        assertEquals(Optional.empty(), g.get(0).fault());
    }

    @Test
    void aRankThatClosesIsNoFault() {
        List<RankGroup> g = group(3);
        g.get(2).close();
        g.get(1).close();
        g.get(0).close();
        g.forEach(x -> assertEquals(Optional.empty(), x.fault(), x.toString()));
    }

    @Test
    void aBarrierTimesOutNamingWhoDidNotArrive() {
        List<RankGroup> g = group(3);
        RendezvousException e = assertThrows(RendezvousException.class,
                () -> g.get(0).barrier(Duration.ofMillis(200)));
        assertEquals("barrier 1: ranks 1, 2 of 3 did not arrive within 200 ms", e.getMessage());
        e = assertThrows(RendezvousException.class, () -> g.get(1).barrier(Duration.ofMillis(200)));
        assertTrue(e.getMessage().matches("barrier 1: rank 0 at .* did not release it within 200 ms"),
                e.getMessage());
    }

    @Test
    void aListenerAddedAfterTheFaultIsCalledAtOnceAndOnlyOnce() {
        List<RankGroup> g = group(3);
        var first = faultOf(g.get(0));
        g.get(1).abandon();
        Fault f = get(first);
        g.get(2).abandon(); // a second fault: relayed, but listeners and fault() keep the first
        assertEquals(f, get(faultOf(g.get(0))));
        assertEquals(Optional.of(f), g.get(0).fault());
    }

    @Test
    void aGroupOfOneIsRankZeroAlone() throws Exception {
        try (RankGroup g = Rendezvous.join(options(0, 1, 0).build())) {
            assertArrayEquals(Ranks.ID, g.payload());
            g.barrier(Duration.ofMillis(1));
            assertFalse(g.fault().isPresent());
        }
    }

    @Test
    void versionsAreWrittenAsNcclWritesThem() {
        assertEquals("2.28.9", Rendezvous.ncclVersionText(22809));
        assertEquals("2.19.3", Rendezvous.ncclVersionText(21903));
        assertEquals("2.7.8", Rendezvous.ncclVersionText(2708));
        assertEquals("3.0.0", Rendezvous.ncclVersionText(30000));
    }

    private List<RankGroup> group(int size) {
        int port = ranks.host(size);
        List<CompletableFuture<RankGroup>> m = new ArrayList<>();
        for (int r = 1; r < size; r++) {
            m.add(ranks.member(r, size, port));
        }
        List<RankGroup> g = new ArrayList<>();
        g.add(ranks.rank0());
        m.forEach(f -> g.add(get(f)));
        return g;
    }


    /** A client that speaks the protocol by hand, for what a real rank would never send. */
    static final class RawPeer {
        /** Joins as {@code rank}; returns the REFUSE line, or "" when welcomed. */
        static String join(int port, int rank, int size, int nccl, byte[] secret) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return handshake(s, rank, size, nccl, secret);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        /** Joins as {@code rank} and returns the open socket, once welcomed. */
        static Socket welcomed(int port, int rank, int size, int nccl, byte[] secret) throws IOException {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            String refused = handshake(s, rank, size, nccl, secret);
            assertEquals("", refused);
            return s;
        }

        private static String handshake(Socket s, int rank, int size, int nccl, byte[] secret) {
            try {
                s.setSoTimeout((int) Ranks.WAIT.toMillis());
                s.getOutputStream().write(Wire.preamble());
                Wire.readPreamble(s.getInputStream());
                byte[] serverNonce = Wire.read(s.getInputStream()).body();
                byte[] clientNonce = Wire.nonce();
                byte[] mac = Wire.joinMac(secret, serverNonce, rank, size, nccl, clientNonce);
                s.getOutputStream().write(Wire.frame(Wire.JOIN, ByteBuffer.allocate(76).putInt(rank).putInt(size)
                        .putInt(nccl).put(clientNonce).put(mac).array()));
                Wire.Frame f = Wire.read(new DataInputStream(s.getInputStream()));
                return f.type() == Wire.REFUSE ? f.text() : "";
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** {@code message} is {@code prefix} and a silence of at least the limit (1 s), in seconds: "1.2 s". */
    private static void assertSilentForAtLeastTheLimit(String message, String prefix) {
        assertTrue(message.startsWith(prefix) && message.endsWith(" s"), message);
        double seconds = Double.parseDouble(message.substring(prefix.length(), message.length() - 2));
        assertTrue(seconds >= Ranks.SILENCE_LIMIT.toMillis() / 1000.0, message);
    }
}
