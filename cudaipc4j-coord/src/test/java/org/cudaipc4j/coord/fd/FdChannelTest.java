package org.cudaipc4j.coord.fd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.coord.internal.Libc;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ShmLeaks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Descriptors passed over a private Unix socket, within a process and between processes; nothing leaks. */
class FdChannelTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    /** A memfd holding {@code text}, owned by the caller. */
    private static OwnedFd memfd(String text) throws IOException {
        OwnedFd fd = OwnedFd.adopt(Libc.memfdCreate("test").value());
        Files.writeString(Path.of("/proc/self/fd/" + fd.value()), text);
        return fd;
    }

    private static String contents(OwnedFd fd) throws IOException {
        return Files.readString(Path.of("/proc/self/fd/" + fd.value()));
    }

    @Test
    void descriptorsTravelWithTheirMessageAndEveryOneIsClosedOnce() throws Exception {
        long before = FdCounts.open();
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("alpha"); OwnedFd b = memfd("beta")) {
            Path dir = server.socket().getParent();
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            CompletableFuture<FdChannel> accepted = CompletableFuture.supplyAsync(() -> server.accept(LIMIT));
            try (FdChannel client = FdChannel.connect(server.socket(), LIMIT);
                 FdChannel peer = accepted.get(30, TimeUnit.SECONDS)) {
                assertEquals(ProcessHandle.current().pid(), peer.peer().pid());
                assertEquals(Libc.getuid(), peer.peer().uid());
                byte[] big = new byte[300_000];
                big[299_999] = 9;
                peer.send("two".getBytes(StandardCharsets.UTF_8), List.of(a.value(), b.value()));
                // Larger than the socket's buffer: sent while the other end reads.
                CompletableFuture<Void> bigSent = CompletableFuture.runAsync(() -> peer.send(big, List.of()));
                try (FdMessage m = client.receive(LIMIT)) {
                    assertEquals("two", new String(m.payload(), StandardCharsets.UTF_8));
                    assertEquals(2, m.fds().size());
                    assertEquals("alpha", contents(m.fds().get(0)));
                    assertEquals("beta", contents(m.fds().get(1)));
                    assertTrue(m.fds().get(0).value() != a.value(), "the receiver has its own descriptor");
                    int handedOn = m.fds().get(1).release();
                    Libc.close(handedOn);
                }
                try (FdMessage m = client.receive(LIMIT)) {
                    assertArrayEquals(big, m.payload());
                    assertEquals(List.of(), m.fds());
                }
                bigSent.get(30, TimeUnit.SECONDS);
                CoordinationException quiet = assertThrows(CoordinationException.class,
                        () -> client.receive(Duration.ofMillis(200)));
                assertTrue(quiet.getMessage().startsWith("timed out after 200 ms (the receive timeout) waiting for a"
                        + " message from the peer"), quiet.getMessage());
            }
            assertTrue(Files.exists(server.socket()));
        }
        assertEquals(before, FdCounts.open(), "every descriptor closed once, the server's and the clients' too");
    }

    @Test
    void warmUpLeavesNothingOpenAndTheTransportWorksAfterIt() throws Exception {
        FdChannel.warmUp(); // the first run links; the counts are taken around a second one
        long before = FdCounts.open();
        FdChannel.warmUp();
        assertEquals(before, FdCounts.open(), "descriptors open after a warm-up");
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("after warm-up")) {
            CompletableFuture<FdChannel> accepted = CompletableFuture.supplyAsync(() -> server.accept(LIMIT));
            try (FdChannel client = FdChannel.connect(server.socket(), LIMIT);
                 FdChannel peer = accepted.get(30, TimeUnit.SECONDS)) {
                client.send(new byte[] {7}, List.of(a.value()));
                try (FdMessage m = peer.receive(LIMIT)) {
                    assertArrayEquals(new byte[] {7}, m.payload());
                    assertEquals("after warm-up", contents(m.fds().get(0)));
                }
            }
        }
    }

    @Test
    void aServerOpenedWhileTheJvmShutsDownIsRefusedAndLeavesNoSocket() {
        JavaProcess.Result r = JavaProcess.run(LIMIT, FdPeer.class, List.of(), "open-in-shutdown");
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(r.stdout().startsWith("REFUSED cannot open a socket at "), r.describe());
        assertTrue(r.stdout().strip().endsWith(": this JVM is shutting down"), r.describe());
        ShmLeaks.assertNoneOf(r.pid());
    }

    @Test
    void anotherProcessReceivesAndClosesWhatItGot() throws Exception {
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("shared with a child");
             JavaProcess.Interactive child = JavaProcess.start(JavaProcess.command(FdPeer.class, List.of(), "receive",
                     server.socket().toString()))) {
            long openBefore = Long.parseLong(child.readLine(LIMIT).substring(5));
            try (FdChannel channel = server.accept(LIMIT)) {
                assertEquals(child.pid(), channel.peer().pid(), "SO_PEERCRED names the child");
                channel.send("hello".getBytes(StandardCharsets.UTF_8), List.of(a.value(), a.value()));
            }
            assertEquals("PAYLOAD hello", child.readLine(LIMIT));
            assertEquals("FD shared with a child", child.readLine(LIMIT));
            assertEquals("FD shared with a child", child.readLine(LIMIT));
            assertEquals("OPEN " + openBefore, child.readLine(LIMIT), "the child closed what it received");
            JavaProcess.Result r = child.finish(LIMIT);
            assertEquals(0, r.exitCode(), r.describe());
        }
    }

    /**
     * Two containers sharing a socket volume: the receiver runs in its own PID namespace ({@code unshare --pid}).
     * Descriptors cross it over the socket, the peer check still names the process (as this namespace sees it), and
     * pidfd_getfd, which needs the other's pid, says the pid means nothing there.
     */
    @Test
    void descriptorsCrossPidNamespacesOverTheSocketButNotByPid() throws Exception {
        List<String> unshare = List.of("unshare", "--pid", "--fork", "--kill-child", "--mount-proc");
        JavaProcess.Result probe = JavaProcess.runCommand(LIMIT, concat(unshare, List.of("true")));
        org.junit.jupiter.api.Assumptions.assumeTrue(probe.exitCode() == 0,
                "unshare --pid is refused here (needs root or user namespaces): " + probe.describe());
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("across namespaces");
             JavaProcess.Interactive child = JavaProcess.start(concat(unshare,
                     JavaProcess.command(FdPeer.class, List.of(), "receive", server.socket().toString())))) {
            long openBefore = Long.parseLong(child.readLine(LIMIT).substring(5));
            try (FdChannel channel = server.accept(LIMIT)) {
                long peer = channel.peer().pid();
                assertEquals(child.pid(), ProcessHandle.of(peer).flatMap(ProcessHandle::parent).orElseThrow().pid(),
                        "SO_PEERCRED names the JVM under unshare, by its pid here");
                channel.send("hello".getBytes(StandardCharsets.UTF_8), List.of(a.value()));
            }
            assertEquals("PAYLOAD hello", child.readLine(LIMIT));
            assertEquals("FD across namespaces", child.readLine(LIMIT));
            assertEquals("OPEN " + openBefore, child.readLine(LIMIT), "the child closed what it received");
            JavaProcess.Result r = child.finish(LIMIT);
            assertEquals(0, r.exitCode(), r.describe());

            JavaProcess.Result take = JavaProcess.runCommand(LIMIT, concat(unshare, JavaProcess.command(FdPeer.class,
                    List.of(), "take", Long.toString(ProcessHandle.current().pid()), Integer.toString(a.value()))));
            assertEquals(0, take.exitCode(), take.describe());
            // Our pid in the child's namespace is nobody, or (pids are small there) some other process there.
            assertTrue(take.stdout().startsWith("REFUSED ") && (take.stdout().contains("in this PID namespace")
                    || take.stdout().contains("has no open descriptor")), take.stdout());
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void aMessageThatLostDescriptorsOrIsNotOursIsRefusedAndLeavesNothingOpen() throws Exception {
        long before = FdCounts.open();
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("x")) {
            CompletableFuture<FdChannel> accepted = CompletableFuture.supplyAsync(() -> server.accept(LIMIT));
            try (FdChannel client = FdChannel.connect(server.socket(), LIMIT);
                 FdChannel peer = accepted.get(30, TimeUnit.SECONDS)) {
                // A header that promises two descriptors, with one attached: sent raw.
                sendRaw(peer, FdChannel.MAGIC, 0, 2, List.of(a.value()));
                CoordinationException lost = assertThrows(CoordinationException.class, () -> client.receive(LIMIT));
                assertTrue(lost.getMessage().endsWith("announced 2 descriptors but 1 arrived"), lost.getMessage());
                sendRaw(peer, 0x12345678, 0, 0, List.of());
                CoordinationException foreign = assertThrows(CoordinationException.class, () -> client.receive(LIMIT));
                assertTrue(foreign.getMessage().contains("is not a descriptor message (magic 0x12345678)"),
                        foreign.getMessage());
            }
        }
        assertEquals(before, FdCounts.open());
    }

    @Test
    void aClosedPeerEndsTheReceive() throws Exception {
        try (FdServer server = FdServer.open()) {
            CompletableFuture<FdChannel> accepted = CompletableFuture.supplyAsync(() -> server.accept(LIMIT));
            try (FdChannel client = FdChannel.connect(server.socket(), LIMIT)) {
                accepted.get(30, TimeUnit.SECONDS).close();
                CoordinationException e = assertThrows(CoordinationException.class, () -> client.receive(LIMIT));
                assertTrue(e.getMessage().endsWith("closed the connection"), e.getMessage());
            }
        }
    }

    @Test
    void closingTheServerEndsAnAcceptWaitingOnAnotherThread() throws Exception {
        FdServer server = FdServer.open();
        CompletableFuture<FdChannel> accepted = CompletableFuture.supplyAsync(() -> server.accept(LIMIT));
        Thread.sleep(200); // let the accept wait in poll
        server.close();
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> accepted.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CoordinationException, e.getCause().toString());
        assertTrue(e.getCause().getMessage().endsWith("is closed"), e.getCause().getMessage());
        assertFalse(Files.exists(server.socket()));
    }

    @Test
    void theSocketGoesWithItsServerAndAStaleOneIsReaped(@TempDir Path tmp) throws Exception {
        Path socket;
        try (FdServer server = FdServer.open()) {
            socket = server.socket();
        }
        assertFalse(Files.exists(socket.getParent()), "closed: directory removed");
        CoordinationException none = assertThrows(CoordinationException.class,
                () -> FdChannel.connect(socket, Duration.ofMillis(300)));
        assertTrue(none.getMessage().startsWith("no descriptor server at " + socket + " within 300 ms"),
                none.getMessage());

        // A killed creator's directory (pid 2^22 + 1 cannot be alive on Linux: pid_max is at most 2^22), in a
        // shared-memory directory of this test's own, where no other process reaps it first.
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        System.setProperty(SharedSegment.DIR_PROPERTY, shm.toString());
        try {
            Path stale = shm.resolve(SharedSegment.PREFIX + "4194305-00000000000000ab"
                    + SharedSegment.SOCKET_DIRECTORY_SUFFIX);
            Files.createDirectory(stale);
            Files.writeString(stale.resolve("s"), "");
            assertEquals(1, SharedSegment.reapStale());
            assertFalse(Files.exists(stale));
        } finally {
            System.clearProperty(SharedSegment.DIR_PROPERTY);
        }

        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        CoordinationException shared = assertThrows(CoordinationException.class,
                () -> FdServer.open(open.resolve("s")));
        assertTrue(shared.getMessage().contains("has mode rwxr-xr-x; other users could reach the socket"),
                shared.getMessage());
        Path privateDir = Files.createDirectory(tmp.resolve("private"));
        Files.setPosixFilePermissions(privateDir, PosixFilePermissions.fromString("rwx------"));
        try (FdServer server = FdServer.open(privateDir.resolve("s"))) {
            assertTrue(Files.exists(server.socket()));
        }
        assertTrue(Files.exists(privateDir), "a caller's directory stays");
        assertFalse(Files.exists(privateDir.resolve("s")));
    }

    @Test
    void aPrivateSocketPathIsHandedOutBeforeItsServerListens() throws Exception {
        Path socket = FdServer.newPrivateSocket();
        assertFalse(Files.exists(socket.getParent()), "nothing is created before the server opens");
        assertThrows(CoordinationException.class, () -> FdChannel.connect(socket, Duration.ofMillis(50)));
        try (FdServer server = FdServer.openPrivate(socket); OwnedFd a = memfd("planned")) {
            assertEquals(socket, server.socket());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> {
                try (FdChannel c = FdChannel.connect(socket, LIMIT); FdMessage m = c.receive(LIMIT)) {
                    return contents(m.fds().getFirst());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (FdChannel channel = server.accept(LIMIT)) {
                channel.send(new byte[] {1}, List.of(a.value()));
            }
            assertEquals("planned", received.get(10, TimeUnit.SECONDS));
            assertThrows(CoordinationException.class, () -> FdServer.openPrivate(socket), "its directory exists");
        }
        assertFalse(Files.exists(socket.getParent()), "closing removes the socket and its directory");
        assertThrows(IllegalArgumentException.class,
                () -> FdServer.openPrivate(SharedSegment.directory().resolve("elsewhere").resolve("s")));
    }

    @Test
    void pidfdTakesADescriptorOfAnotherProcessOrSaysWhyNot() throws Exception {
        try (JavaProcess.Interactive holder = JavaProcess.start(JavaProcess.command(FdPeer.class, List.of(), "hold",
                "held by another process"))) {
            String[] hold = holder.readLine(LIMIT).split(" ");
            long pid = Long.parseLong(hold[1]);
            int fd = Integer.parseInt(hold[2]);
            try (OwnedFd copy = PidFd.take(pid, fd)) {
                assertEquals("held by another process", contents(copy));
            } catch (CoordinationException e) {
                // Allowed to fail only for the documented reason, and then it must say it.
                assertTrue(e.getMessage().contains("not permitted: taking a descriptor needs ptrace access"),
                        e.getMessage());
            }
            CoordinationException noFd = assertThrows(CoordinationException.class, () -> PidFd.take(pid, 999));
            assertTrue(noFd.getMessage().endsWith("has no open descriptor 999")
                    || noFd.getMessage().contains("not permitted"), noFd.getMessage());
            holder.writeLine("done");
            assertEquals(0, holder.finish(LIMIT).exitCode());
        }
        CoordinationException gone = assertThrows(CoordinationException.class, () -> PidFd.take(4194305, 3));
        assertTrue(gone.getMessage().contains("no process 4194305 in this PID namespace"), gone.getMessage());
    }

    @Test
    void ownedDescriptorsCloseOnceAndRefuseUseAfterwards() throws Exception {
        long before = FdCounts.open();
        OwnedFd fd = memfd("once");
        fd.close();
        fd.close();
        assertFalse(fd.isOpen());
        assertThrows(IllegalStateException.class, fd::value);
        assertThrows(IllegalArgumentException.class, () -> OwnedFd.adopt(-1));
        assertThrows(IllegalArgumentException.class, () -> OwnedFd.adopt(999_999));
        assertEquals(before, FdCounts.open());
    }

    /** Sends a header with the given fields and descriptors, and no payload, bypassing the checks of send. */
    private static void sendRaw(FdChannel channel, int magic, int length, int fdCount, List<Integer> fds) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(12, 8);
            header.set(ValueLayout.JAVA_INT, 0, magic);
            header.set(ValueLayout.JAVA_INT, 4, length);
            header.set(ValueLayout.JAVA_INT, 8, fdCount);
            channel.transmit(header, new ArrayList<>(fds));
        }
    }
}
