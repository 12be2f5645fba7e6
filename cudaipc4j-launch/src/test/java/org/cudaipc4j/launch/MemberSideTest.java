package org.cudaipc4j.launch;

import static org.cudaipc4j.launch.Ranks.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A rank against a rank 0 played by hand: one that cannot prove the secret, or that goes before START. */
class MemberSideTest {
    /** The proof's wait and half a second for a loaded machine. */
    private static final long REFUSED_WITHIN = MemberSide.PROOF_WAIT.plusMillis(500).toNanos();

    @RegisterExtension
    final Ranks ranks = new Ranks();

    @Test
    void aRankZeroWithAWrongProofIsRefusedAtOnce() throws IOException {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RankGroup> one = ranks.member(1, 2, fake.getLocalPort());
            try (Socket s = fake.accept()) {
                handshakeUntilTheJoin(s);
                s.getOutputStream().write(Wire.frame(Wire.WELCOME, new byte[Wire.MAC_BYTES]));
                long sent = System.nanoTime();
                assertEquals("rank 0 at 127.0.0.1:" + fake.getLocalPort() + " does not know the secret",
                        failure(one).getMessage());
                assertTrue(System.nanoTime() - sent < REFUSED_WITHIN, "refused only after the proof's wait");
            }
        }
    }

    @Test
    void aRankZeroSilentAfterTheJoinCannotProveTheSecretAndIsNotWaitedFor() throws IOException {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RankGroup> one = ranks.member(1, 2, fake.getLocalPort());
            try (Socket s = fake.accept()) {
                handshakeUntilTheJoin(s);
                long joined = System.nanoTime();
                assertEquals("rank 0 at 127.0.0.1:" + fake.getLocalPort() + " did not prove it knows the secret"
                        + " within 1 s of rank 1's JOIN: is another program listening there?",
                        failure(one).getMessage());
                assertTrue(System.nanoTime() - joined < REFUSED_WITHIN, "took longer than the proof's wait");
            }
        }
    }

    @Test
    void aRankThatLosesRankZeroAfterItsWelcomeFailsAtOnceNamingTheClose() throws IOException {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RankGroup> one = ranks.member(1, 3, fake.getLocalPort());
            long closed;
            try (Socket s = fake.accept()) {
                byte[][] nonces = handshakeUntilTheJoin(s);
                s.getOutputStream().write(Wire.frame(Wire.WELCOME, Wire.welcomeMac(Ranks.SECRET, nonces[1],
                        nonces[0])));
                closed = System.nanoTime();
            }
            fake.close(); // rank 0 is gone: trying again would find nobody until the join timeout
            assertEquals("rank 0 at 127.0.0.1:" + fake.getLocalPort() + " closed the connection before it started"
                    + " the group of 3 ranks", failure(one).getMessage());
            assertTrue(System.nanoTime() - closed < Duration.ofSeconds(1).toNanos(), "not at once");
        }
    }

    /** Plays rank 0 up to the rank's JOIN, read; returns {rank 0's nonce, the rank's nonce}. */
    private static byte[][] handshakeUntilTheJoin(Socket s) throws IOException {
        s.setSoTimeout((int) Ranks.WAIT.toMillis());
        InputStream in = s.getInputStream();
        Wire.readPreamble(in);
        byte[] serverNonce = Wire.nonce();
        s.getOutputStream().write(Wire.preamble());
        s.getOutputStream().write(Wire.frame(Wire.CHALLENGE, serverNonce));
        Wire.Frame join = Wire.read(in);
        assertEquals(Wire.JOIN, join.type());
        return new byte[][] {serverNonce, Wire.parseJoin(join.body()).nonce()};
    }
}
