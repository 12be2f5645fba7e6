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
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.OpenDescriptors;
import org.cudaipc4j.testing.ShmLeaks;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Descriptors passed over a private Unix socket, within a process and between processes; nothing leaks. */
class FdChannelTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final AtomicInteger MEMFDS = new AtomicInteger();

    /**
     * A memfd holding {@code text}, owned by the caller, with a name of its own: every descriptor that refers to it
     * is a copy of this one ({@link OpenDescriptors#referringTo}).
     */
    private static OwnedFd memfd(String text) throws IOException {
        OwnedFd fd = OwnedFd.adopt(LibcFiles.memfdCreate("fdtest-" + ProcessHandle.current().pid() + "-"
                + MEMFDS.incrementAndGet()).value());
        Files.writeString(Path.of("/proc/self/fd/" + fd.value()), text);
        return fd;
    }

    /** Asserts that the only descriptor of {@code fd}'s file still open is {@code fd} itself. */
    private static void assertOnlyTheOriginalIsOpen(OwnedFd fd, String why) {
        assertEquals(List.of(fd.value()), OpenDescriptors.referringTo(OpenDescriptors.target(fd.value())), why);
    }

    /** Two connected channels of this process (a socket pair), for messages written by hand. */
    private static FdChannel[] pair() {
        OwnedFd[] p = Native.socketPair();
        return new FdChannel[] {new FdChannel(p[0], FdServer.checkPeer(p[0].value(), "test peer", null)),
            new FdChannel(p[1], FdServer.checkPeer(p[1].value(), "test peer", null))};
    }

    private static String contents(OwnedFd fd) throws IOException {
        return Files.readString(Path.of("/proc/self/fd/" + fd.value()));
    }

    @Test
    void descriptorsTravelWithTheirMessageAndEveryOneIsClosedOnce() throws Exception {
        // What each object under test holds: its socket, and the files sent.
        List<String> targets = new ArrayList<>();
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("alpha"); OwnedFd b = memfd("beta")) {
            targets.add(OpenDescriptors.target(server.descriptor()));
            targets.add(OpenDescriptors.target(a.value()));
            targets.add(OpenDescriptors.target(b.value()));
            Path dir = server.socket().getParent();
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            CompletableFuture<FdChannel> accepted = CompletableFuture.supplyAsync(() -> server.accept(LIMIT));
            try (FdChannel client = FdChannel.connect(server.socket(), LIMIT);
                 FdChannel peer = accepted.get(30, TimeUnit.SECONDS)) {
                targets.add(OpenDescriptors.target(client.descriptor()));
                targets.add(OpenDescriptors.target(peer.descriptor()));
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
                assertOnlyTheOriginalIsOpen(a, "the received copy of a closed with its message");
                assertOnlyTheOriginalIsOpen(b, "the copy of b closed by whom it was handed on to");
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
        for (String target : targets) {
            assertEquals(List.of(), OpenDescriptors.referringTo(target), target + " still open");
        }
    }

    @Test
    void memoryMadeBySendingItsOwnedFdIsMappedByTheReceiverAndShared() {
        FdChannel[] ends = pair();
        try (FdChannel sender = ends[0]; FdChannel receiver = ends[1];
             OwnedFd memory = OwnedFd.anonymousMemory("fdtest-map-" + ProcessHandle.current().pid(), 8192);
             Arena arena = Arena.ofConfined()) {
            MemorySegment mine = memory.mapShared(arena);
            assertEquals(8192, mine.byteSize());
            mine.set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9abcL);
            sender.send("memory".getBytes(StandardCharsets.UTF_8), memory);
            MemorySegment theirs;
            try (FdMessage m = receiver.receive(LIMIT)) {
                assertEquals(1, m.fds().size());
                theirs = m.fds().getFirst().mapShared(arena);
            }
            // The descriptor is closed with its message; the mapping stays, over the same memory.
            assertEquals(8192, theirs.byteSize());
            assertEquals(0x1234_5678_9abcL, theirs.get(ValueLayout.JAVA_LONG, 4096));
            theirs.set(ValueLayout.JAVA_INT, 0, 42);
            assertEquals(42, mine.get(ValueLayout.JAVA_INT, 0));
            assertOnlyTheOriginalIsOpen(memory, "the received copy closed with its message");
        }
    }

    @Test
    void aDescriptorThatIsNoFileIsNotMapped() {
        FdChannel[] ends = pair();
        try (FdChannel a = ends[0]; FdChannel b = ends[1]; Arena arena = Arena.ofConfined();
             OwnedFd empty = OwnedFd.adopt(LibcFiles.memfdCreate("fdtest-empty").value())) {
            OwnedFd socket = OwnedFd.adopt(a.descriptor());
            try {
                CoordinationException e = assertThrows(CoordinationException.class, () -> socket.mapShared(arena));
                assertTrue(e.getMessage().startsWith("cannot map fd " + a.descriptor() + " (socket:"), e.getMessage());
            } finally {
                socket.release(); // the channel owns it
            }
            assertEquals("cannot map " + empty + ": its file is empty",
                    assertThrows(CoordinationException.class, () -> empty.mapShared(arena)).getMessage());
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
            try (FdChannel channel = server.accept(LIMIT)) {
                assertEquals(child.pid(), channel.peer().pid(), "SO_PEERCRED names the child");
                channel.send("hello".getBytes(StandardCharsets.UTF_8), List.of(a.value(), a.value()));
            }
            assertEquals("PAYLOAD hello", child.readLine(LIMIT));
            assertEquals("FD shared with a child", child.readLine(LIMIT));
            assertEquals("FD shared with a child", child.readLine(LIMIT));
            assertEquals("LEFT 0", child.readLine(LIMIT), "the child closed what it received");
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
        // Root makes the PID namespace itself; anyone else first makes a user namespace in which it is root.
        boolean root = ((Integer) java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid"))
                == 0;
        List<String> unshare = root ? List.of("unshare", "--pid", "--fork", "--kill-child", "--mount-proc")
                : List.of("unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc");
        JavaProcess.Result probe = JavaProcess.runCommand(LIMIT, concat(unshare, List.of("true")));
        org.junit.jupiter.api.Assumptions.assumeTrue(probe.exitCode() == 0,
                "unshare is refused here (needs root, or user namespaces for others): " + probe.describe());
        try (FdServer server = FdServer.open(); OwnedFd a = memfd("across namespaces");
             JavaProcess.Interactive child = JavaProcess.start(concat(unshare,
                     JavaProcess.command(FdPeer.class, NO_PERF_DATA, "receive", server.socket().toString())))) {
            try (FdChannel channel = server.accept(LIMIT)) {
                long peer = channel.peer().pid();
                assertEquals(child.pid(), ProcessHandle.of(peer).flatMap(ProcessHandle::parent).orElseThrow().pid(),
                        "SO_PEERCRED names the JVM under unshare, by its pid here");
                channel.send("hello".getBytes(StandardCharsets.UTF_8), List.of(a.value()));
            }
            assertEquals("PAYLOAD hello", child.readLine(LIMIT));
            assertEquals("FD across namespaces", child.readLine(LIMIT));
            assertEquals("LEFT 0", child.readLine(LIMIT), "the child closed what it received");
            JavaProcess.Result r = child.finish(LIMIT);
            assertEquals(0, r.exitCode(), r.describe());

            JavaProcess.Result take = JavaProcess.runCommand(LIMIT, concat(unshare, JavaProcess.command(FdPeer.class,
                    NO_PERF_DATA, "take", Long.toString(ProcessHandle.current().pid()), Integer.toString(a.value()))));
            assertEquals(0, take.exitCode(), take.describe());
            // Our pid in the child's namespace is nobody, or (pids are small there) some other process there.
            assertTrue(take.stdout().startsWith("REFUSED ") && (take.stdout().contains("in this PID namespace")
                    || take.stdout().contains("has no open descriptor")), take.stdout());
        }
    }

    /**
     * A JVM that is pid 1 of its own PID namespace would write {@code /tmp/hsperfdata_<user>/1}, which any other such
     * JVM of the user (a parallel test run) also claims: the child keeps no performance-data file.
     */
    private static final List<String> NO_PERF_DATA = List.of("-XX:-UsePerfData");

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void aMessageThatLostDescriptorsOrIsNotOursIsRefusedAndLeavesNothingOpen() throws Exception {
        try (OwnedFd a = memfd("x")) {
            // A header that promises two descriptors, with one attached: sent raw.
            assertEquals("a message from the peer (pid " + ProcessHandle.current().pid() + ") announced 2 descriptors"
                    + " but 1 arrived", refusal(a, FdChannel.MAGIC, 0, 2, List.of(a.value())));
            assertTrue(refusal(a, FdChannel.MAGIC, 0, 0, List.of(a.value(), a.value(), a.value()))
                    .endsWith("announced 0 descriptors but 3 arrived"));
            assertTrue(refusal(a, 0x12345678, 0, 1, List.of(a.value()))
                    .endsWith("is not a descriptor message (magic 0x12345678)"));
        }
    }

    /**
     * Sends a header with the given fields and descriptors over a fresh pair and returns the receiver's refusal,
     * after checking that no copy of {@code sent} is left open and that the connection refuses what follows.
     */
    private static String refusal(OwnedFd sent, int magic, int length, int fdCount, List<Integer> fds) {
        FdChannel[] p = pair();
        try (FdChannel sender = p[0]; FdChannel receiver = p[1]) {
            sendRaw(sender, magic, length, fdCount, fds);
            sender.transmit(payload(64), List.of()); // bytes of the refused message, or of something else
            CoordinationException e = assertThrows(CoordinationException.class, () -> receiver.receive(LIMIT));
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertOnlyTheOriginalIsOpen(sent, "every descriptor that came with a refused message is closed");
            CoordinationException after = assertThrows(CoordinationException.class, () -> receiver.receive(LIMIT));
            assertTrue(after.getMessage().contains("is out of step since an earlier message was refused ("
                    + e.getMessage() + ")"), after.getMessage());
            return e.getMessage();
        }
    }

    private static MemorySegment payload(int bytes) {
        return Arena.ofAuto().allocate(bytes);
    }

    @Test
    void headersThatAnnounceNegativeOrHugeLengthsOrCountsAreRefused() throws Exception {
        String limits = " (at most " + FdChannel.MAX_PAYLOAD + " and " + Native.MAX_FDS + "): refused";
        int[][] headers = {
            {-1, 0}, {Integer.MIN_VALUE, 0}, {FdChannel.MAX_PAYLOAD + 1, 0}, {Integer.MAX_VALUE, 1},
            {0, -1}, {0, Integer.MIN_VALUE}, {0, Native.MAX_FDS + 1}, {0, Integer.MAX_VALUE}, {-5, -5},
        };
        try (OwnedFd a = memfd("announced")) {
            for (int[] h : headers) {
                String message = refusal(a, FdChannel.MAGIC, h[0], h[1], List.of(a.value()));
                assertTrue(message.endsWith("announces " + h[0] + " bytes and " + h[1] + " descriptors" + limits),
                        message);
            }
        }
    }

    @Test
    void theEndOfTheStreamInsideAMessageIsRefusedAndClosesItsDescriptors() throws Exception {
        try (OwnedFd a = memfd("cut short")) {
            FdChannel[] p = pair();
            try (FdChannel receiver = p[1]) {
                try (FdChannel sender = p[0]) {
                    sendRaw(sender, FdChannel.MAGIC, 100, 1, List.of(a.value()));
                    sender.transmit(payload(10), List.of());
                }
                CoordinationException e = assertThrows(CoordinationException.class, () -> receiver.receive(LIMIT));
                assertTrue(e.getMessage().endsWith(" closed the connection after 10 of 100 bytes"), e.getMessage());
                assertOnlyTheOriginalIsOpen(a, "the descriptor of the cut message is closed");
            }
            p = pair();
            try (FdChannel receiver = p[1]) {
                try (FdChannel sender = p[0]) {
                    // Five bytes of a header, the descriptor attached to the first.
                    MemorySegment part = Arena.ofAuto().allocate(5);
                    part.set(ValueLayout.JAVA_INT_UNALIGNED, 0, FdChannel.MAGIC);
                    sender.transmit(part, List.of(a.value()));
                }
                CoordinationException e = assertThrows(CoordinationException.class, () -> receiver.receive(LIMIT));
                assertTrue(e.getMessage().endsWith(" closed the connection in the middle of a message"),
                        e.getMessage());
                assertOnlyTheOriginalIsOpen(a, "the descriptor of the cut header is closed");
            }
        }
    }

    @Test
    void descriptorsAttachedAfterTheHeaderAreRefused() throws Exception {
        try (OwnedFd a = memfd("late")) {
            FdChannel[] p = pair();
            try (FdChannel sender = p[0]; FdChannel receiver = p[1]) {
                sendRaw(sender, FdChannel.MAGIC, 8, 0, List.of());
                sender.transmit(payload(8), List.of(a.value()));
                CoordinationException e = assertThrows(CoordinationException.class, () -> receiver.receive(LIMIT));
                assertTrue(e.getMessage().endsWith("carried descriptors after the start of its header: refused"),
                        e.getMessage());
                assertOnlyTheOriginalIsOpen(a, "the late descriptor is not kept");
            }
        }
    }

    @Test
    void aSenderRefusesTooManyDescriptorsOrBytesAndTheKernelRefusesMoreThanItsLimit() throws Exception {
        try (OwnedFd a = memfd("many")) {
            FdChannel[] p = pair();
            try (FdChannel sender = p[0]; FdChannel receiver = p[1]) {
                List<Integer> tooMany = java.util.Collections.nCopies(Native.MAX_FDS + 1, a.value());
                IllegalArgumentException fds = assertThrows(IllegalArgumentException.class,
                        () -> sender.send(new byte[1], tooMany));
                assertEquals("a message carries at most " + FdChannel.MAX_PAYLOAD + " bytes and " + Native.MAX_FDS
                        + " descriptors, got 1 and " + (Native.MAX_FDS + 1), fds.getMessage());
                IllegalArgumentException bytes = assertThrows(IllegalArgumentException.class,
                        () -> sender.send(new byte[FdChannel.MAX_PAYLOAD + 1], List.of()));
                assertTrue(bytes.getMessage().endsWith("got " + (FdChannel.MAX_PAYLOAD + 1) + " and 0"),
                        bytes.getMessage());
                // Past the checks, the kernel's own limit (SCM_MAX_FD) refuses the message whole.
                CoordinationException kernel = assertThrows(CoordinationException.class,
                        () -> sendRaw(sender, FdChannel.MAGIC, 0, tooMany.size(), tooMany));
                assertTrue(kernel.getMessage().startsWith("cannot send to the peer (pid "), kernel.getMessage());
                // The most there may be arrive, and nothing of the refused one came before them.
                List<Integer> most = java.util.Collections.nCopies(Native.MAX_FDS, a.value());
                sender.send(new byte[] {1}, most);
                try (FdMessage m = receiver.receive(LIMIT)) {
                    assertEquals(Native.MAX_FDS, m.fds().size());
                    String received = OpenDescriptors.target(a.value());
                    assertEquals(Native.MAX_FDS + 1, OpenDescriptors.referringTo(received).size());
                }
                assertOnlyTheOriginalIsOpen(a, "all copies closed with their message");
            }
        }
    }

    /**
     * Random messages, some with our magic and random lengths and counts, with up to three descriptors attached and
     * up to 80 bytes after the header, then the end of the stream: each is received whole and true to what was
     * sent, or refused with a CoordinationException; either way no received descriptor stays open.
     */
    @Test
    void randomBytesAreRefusedOrReceivedAsSentAndLeaveNoDescriptorOpen() throws Exception {
        long seed = Long.getLong("cudaipc4j.test.seed", System.nanoTime());
        System.out.println("FdChannelTest seed " + seed + " (rerun with -Dcudaipc4j.test.seed=" + seed + ")");
        Random random = new Random(seed);
        int received = 0;
        int refused = 0;
        try (OwnedFd a = memfd("random")) {
            for (int i = 0; i < 300; i++) {
                int magic = random.nextInt(4) == 0 ? random.nextInt() : FdChannel.MAGIC;
                int attached = random.nextInt(4);
                int after = random.nextInt(81);
                int length = switch (random.nextInt(3)) {
                    case 0 -> random.nextInt();
                    case 1 -> random.nextInt(100);
                    default -> after;
                };
                int count = random.nextInt(4) == 0 ? random.nextInt() : attached;
                byte[] rest = new byte[after];
                random.nextBytes(rest);
                FdChannel[] p = pair();
                try (FdChannel receiver = p[1]) {
                    try (FdChannel sender = p[0]) {
                        sendRaw(sender, magic, length, count, java.util.Collections.nCopies(attached, a.value()));
                        if (after > 0) {
                            MemorySegment bytes = Arena.ofAuto().allocate(after);
                            MemorySegment.copy(MemorySegment.ofArray(rest), 0, bytes, 0, after);
                            sender.transmit(bytes, List.of());
                        }
                    }
                    String context = "seed " + seed + ", message " + i + ": magic " + magic + ", length " + length
                            + ", count " + count + ", " + attached + " attached, " + after + " bytes after the header";
                    try (FdMessage m = receiver.receive(LIMIT)) {
                        assertTrue(magic == FdChannel.MAGIC && count == attached && length >= 0 && length <= after,
                                "received: " + context);
                        assertArrayEquals(java.util.Arrays.copyOf(rest, length), m.payload(), context);
                        assertEquals(attached, m.fds().size(), context);
                        received++;
                    } catch (CoordinationException e) {
                        assertTrue(e.getMessage() != null && !e.getMessage().contains("\n"), context);
                        refused++;
                    } catch (RuntimeException e) {
                        throw new AssertionError("not a CoordinationException: " + context, e);
                    }
                    assertOnlyTheOriginalIsOpen(a, context);
                }
            }
        }
        assertTrue(received > 0 && refused > 0, received + " received, " + refused + " refused (seed " + seed + ")");
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
        CompletableFuture<FdChannel> accepted = new CompletableFuture<>();
        String name = "fd-accept-" + (ProcessHandle.current().pid() % 10000);
        Thread.ofPlatform().name(name).daemon().start(() -> {
            try {
                accepted.complete(server.accept(LIMIT));
            } catch (Throwable t) {
                accepted.completeExceptionally(t);
            }
        });
        // Close only once the accept waits in poll, so that this is what ends the wait.
        assertTrue(Waits.until(10_000, () -> waitsInPoll(name)), "the accepting thread never waited in poll");
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
        System.setProperty("cudaipc4j.shm.dir", shm.toString());
        try {
            Path stale = shm.resolve(SharedSegment.PREFIX + "4194305-00000000000000ab"
                    + SharedSegment.SOCKET_DIRECTORY_SUFFIX);
            Files.createDirectory(stale);
            Files.writeString(stale.resolve("s"), "");
            assertEquals(1, SharedSegment.reapStale());
            assertFalse(Files.exists(stale));
        } finally {
            System.clearProperty("cudaipc4j.shm.dir");
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
    void aTakenDirectoryNameMakesTheServerPickAnotherAndLeaveItAlone() throws Exception {
        Path taken = Files.createDirectory(SharedSegment.directory().resolve(SharedSegment.newName(null)
                + SharedSegment.SOCKET_DIRECTORY_SUFFIX));
        Path planted = Files.writeString(taken.resolve("s"), "not a socket");
        String free = SharedSegment.newName(null) + SharedSegment.SOCKET_DIRECTORY_SUFFIX;
        Iterator<String> names = List.of(taken.getFileName().toString(), free).iterator();
        Path socket;
        try (FdServer server = FdServer.openPrivate(names::next); OwnedFd a = memfd("planned")) {
            socket = server.socket();
            assertEquals(SharedSegment.directory().resolve(free).resolve("s"), socket);
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
        } finally {
            assertEquals("not a socket", Files.readString(planted), "what had the name is left as it was");
            Files.delete(planted);
            Files.delete(taken);
        }
        assertFalse(Files.exists(socket.getParent()), "closing removes the socket and its directory");
    }

    /**
     * Why this system refuses {@code pidfd_getfd} between processes of one user, or null where nothing should: root
     * may always; others are refused under Yama ptrace_scope 3, or 2 without CAP_SYS_PTRACE, or by a seccomp filter.
     */
    private static String whyTakingIsRefusedHere() throws IOException {
        String status = Files.readString(Path.of("/proc/self/status"));
        if (status.lines().anyMatch(l -> l.startsWith("Seccomp:") && !l.strip().endsWith("0"))) {
            return "this process runs under a seccomp filter, which may forbid pidfd_getfd";
        }
        int scope = PidFd.ptraceScope();
        if (scope == 3 || (scope == 2 && Libc.getuid() != 0)) {
            return "Yama ptrace_scope is " + scope + ": only root (or nobody) may take another process's descriptors";
        }
        return null;
    }

    /** Takes {@code fd} of {@code pid}, or, where this system refuses (and only then), skips saying why. */
    private static OwnedFd takeOrSkip(long pid, int fd) throws IOException {
        try {
            return PidFd.take(pid, fd);
        } catch (CoordinationException e) {
            String why = whyTakingIsRefusedHere();
            if (why == null) {
                throw e;
            }
            assertTrue(e.getMessage().startsWith("pidfd_getfd(pid " + pid + ", fd " + fd + ") failed: not permitted:"
                    + " taking a descriptor needs ptrace access"), e.getMessage());
            Assumptions.abort("PidFd.take is refused here (" + why + ") with the documented error: " + e.getMessage());
            throw e;
        }
    }

    @Test
    void pidfdTakesADescriptorOfAChildOfThisUser() throws Exception {
        try (JavaProcess.Interactive holder = JavaProcess.start(JavaProcess.command(FdPeer.class, List.of(), "hold",
                "held by another process"))) {
            String[] hold = holder.readLine(LIMIT).split(" ");
            long pid = Long.parseLong(hold[1]);
            int fd = Integer.parseInt(hold[2]);
            assertEquals(holder.pid(), pid);
            String target;
            try (OwnedFd copy = takeOrSkip(pid, fd)) {
                assertEquals("held by another process", contents(copy));
                target = OpenDescriptors.target(copy.value());
                assertTrue(target.startsWith("/memfd:held"), target);
            }
            assertEquals(List.of(), OpenDescriptors.referringTo(target), "the copy is closed");
            CoordinationException noFd = assertThrows(CoordinationException.class, () -> PidFd.take(pid, 999));
            assertEquals("pidfd_getfd(pid " + pid + ", fd 999) failed: process " + pid + " has no open descriptor 999",
                    noFd.getMessage());
            holder.writeLine("done");
            assertEquals(0, holder.finish(LIMIT).exitCode());
        }
        CoordinationException gone = assertThrows(CoordinationException.class, () -> PidFd.take(4194305, 3));
        assertTrue(gone.getMessage().contains("no process 4194305 in this PID namespace"), gone.getMessage());
    }

    /**
     * Between two processes where neither is the other's ancestor, which Yama ptrace_scope 1 refuses unless the
     * owner names the taker: the owner allows it, then the other takes the descriptor.
     */
    @Test
    void pidfdTakesADescriptorOfASiblingThatAllowedIt() throws Exception {
        try (JavaProcess.Interactive holder = JavaProcess.start(JavaProcess.command(FdPeer.class, List.of(), "hold",
                "held for a sibling"));
             JavaProcess.Interactive taker = JavaProcess.start(JavaProcess.command(FdPeer.class, List.of(), "hold",
                "the taker"))) {
            String[] hold = holder.readLine(LIMIT).split(" ");
            taker.readLine(LIMIT); // started: its pid is the one to allow
            holder.writeLine("allow " + taker.pid());
            assertEquals("ALLOWED", holder.readLine(LIMIT));
            taker.writeLine("take " + hold[1] + " " + hold[2]);
            String took = taker.readLine(LIMIT);
            if (took.startsWith("REFUSED ") && whyTakingIsRefusedHere() != null) {
                assertTrue(took.contains("not permitted: taking a descriptor needs ptrace access"), took);
                Assumptions.abort("PidFd.take is refused here (" + whyTakingIsRefusedHere() + "): " + took);
            }
            assertEquals("TAKEN held for a sibling", took);
            holder.writeLine("done");
            taker.writeLine("done");
            assertEquals(0, holder.finish(LIMIT).exitCode());
            assertEquals(0, taker.finish(LIMIT).exitCode());
        }
    }

    @Test
    void ownedDescriptorsCloseOnceAndRefuseUseAfterwards() throws Exception {
        OwnedFd fd = memfd("once");
        String target = OpenDescriptors.target(fd.value());
        fd.close();
        fd.close();
        assertFalse(fd.isOpen());
        assertThrows(IllegalStateException.class, fd::value);
        assertThrows(IllegalArgumentException.class, () -> OwnedFd.adopt(-1));
        assertThrows(IllegalArgumentException.class, () -> OwnedFd.adopt(999_999));
        assertEquals(List.of(), OpenDescriptors.referringTo(target));
    }

    /** Whether the thread named {@code name} (its native name: the JVM sets it) is blocked in poll. */
    private static boolean waitsInPoll(String name) {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (!Files.readString(task.resolve("comm")).strip().equals(name)) {
                        continue;
                    }
                    String syscall = Files.readString(task.resolve("syscall")).strip();
                    String number = syscall.split(" ")[0];
                    // poll (x86-64 7) or ppoll (x86-64 271, arm64 73), asleep.
                    return (number.equals("7") || number.equals("271") || number.equals("73"))
                            && Files.readString(task.resolve("stat")).contains(") S ");
                } catch (java.nio.file.NoSuchFileException gone) {
                    // that thread ended meanwhile
                }
            }
            return false;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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
