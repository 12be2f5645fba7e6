package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.OpenDescriptors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The order of exits, with plain processes ({@code sleep}, {@code true}) ended one after another in an order that
 * differs from their indexes. Each next kill comes only once the previous exit is known to have happened, so the
 * expected order is certain.
 */
class ExitOrderTest {
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void endAll() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS), "pid " + p.pid() + " did not end");
        }
    }

    @Test
    void pidfdsAreUsedOnThisKernel() {
        try (ExitOrder order = ExitOrder.open()) {
            assertTrue(order.kernelOrdered(), "pidfd_open and epoll (Linux 5.3+) are expected here: "
                    + order.fallbackReason());
            assertNull(order.fallbackReason());
        }
    }

    @Test
    void theKernelsOrderHoldsHoweverLateItIsRead() throws Exception {
        try (ExitOrder order = ExitOrder.open()) {
            List<Process> members = sleepers(order, 3);
            // All three exit before the first read: only the kernel's queue knows their order.
            for (int index : new int[] {2, 0, 1}) {
                Process p = members.get(index);
                p.destroyForcibly();
                assertTrue(p.waitFor(10, TimeUnit.SECONDS), "member " + index + " did not exit");
            }
            assertEquals(List.of(2, 0, 1), order.drain());
            assertEquals(List.of(), order.drain(), "each exit is reported once");
        }
    }

    @Test
    void theJvmsOrderFollowsTheExitsItReported() throws Exception {
        try (ExitOrder order = ExitOrder.jvmOrder("for the test")) {
            assertFalse(order.kernelOrdered());
            assertEquals("for the test", order.fallbackReason());
            List<Process> members = sleepers(order, 3);
            List<Integer> seen = new ArrayList<>();
            // The JVM's order is only as good as its reaper threads: each next exit waits until the last is reported.
            for (int index : new int[] {1, 2, 0}) {
                members.get(index).destroyForcibly();
                assertTrue(waitUntil(10_000, () -> {
                    seen.addAll(order.drain());
                    return seen.contains(index);
                }), "exit of member " + index + " not reported: " + seen);
            }
            assertEquals(List.of(1, 2, 0), seen);
            assertTrue(order.descriptors().isEmpty());
        }
    }

    @Test
    void aMemberGoneBeforeItsRegistrationIsPlacedThere() throws Exception {
        try (ExitOrder order = ExitOrder.open()) {
            List<Process> first = sleepers(order, 1);
            first.getFirst().destroyForcibly();
            assertTrue(first.getFirst().waitFor(10, TimeUnit.SECONDS));
            Process quick = start("true");
            assertEquals(0, quick.waitFor());
            order.register(1, quick, quick.toHandle());
            Process last = start("sleep", "600");
            order.register(2, last, last.toHandle());
            last.destroyForcibly();
            assertTrue(last.waitFor(10, TimeUnit.SECONDS));
            assertEquals(List.of(0, 1, 2), order.drain());
        }
    }

    /**
     * A process whose main thread has ended while another runs on ({@code /proc} shows a zombie) still lives: for
     * its siblings ({@link Pids#isAlive}) and in the exit order, which places it when its last thread ends. A JVM's
     * exit makes such a span (its last thread tears down its memory); were the siblings to see it dead earlier, one
     * that reacts quickly could end before it and be blamed. Here the span is long on purpose: a Python program ends
     * its main thread ({@code pthread_exit}) and exits only when told, after another member has exited.
     */
    @Test
    void aMemberWhoseMainThreadEndedLivesUntilItsLastThreadEnds() throws Exception {
        Assumptions.assumeTrue(pythonWithCtypes(), "needs python3 with ctypes to run a program whose main thread"
                + " ends before the rest of it");
        String program = """
                import ctypes, os, sys, threading
                def rest():
                    sys.stdin.readline()
                    os._exit(7)
                threading.Thread(target=rest).start()
                print("main thread ends", flush=True)
                ctypes.CDLL(None).pthread_exit(None)
                """;
        try (ExitOrder order = ExitOrder.open()) {
            Process first = new ProcessBuilder("python3", "-c", program).redirectErrorStream(true).start();
            processes.add(first);
            order.register(0, first, first.toHandle());
            Process second = start("sleep", "600");
            order.register(1, second, second.toHandle());
            assertEquals("main thread ends", TestSupport.reader(first).readLine());
            Path stat = Path.of("/proc/" + first.pid() + "/stat");
            assertTrue(waitUntil(10_000, () -> state(stat) == 'Z'), "member 0's main thread did not end");
            assertTrue(Pids.isAlive(first.pid()), "member 0 runs on in its other thread: " + Files.readString(stat));

            second.destroyForcibly();
            assertTrue(second.waitFor(10, TimeUnit.SECONDS));
            first.getOutputStream().write("exit now\n".getBytes(StandardCharsets.US_ASCII));
            first.getOutputStream().flush();
            assertTrue(first.waitFor(10, TimeUnit.SECONDS));
            assertEquals(7, first.exitValue());
            assertEquals(List.of(1, 0), order.drain());
        }
    }

    /** The state letter in a /proc/PID/stat, or '?' when it cannot be read. */
    private static char state(Path stat) {
        try {
            String s = Files.readString(stat);
            return s.charAt(s.lastIndexOf(')') + 2);
        } catch (IOException | RuntimeException e) {
            return '?';
        }
    }

    private static boolean pythonWithCtypes() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import ctypes").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    @SuppressWarnings("try") // closes inside the block to look at the descriptors, and twice to check idempotence
    void closingLetsGoOfEveryDescriptor() throws Exception {
        List<Integer> fds;
        try (ExitOrder order = ExitOrder.open()) {
            sleepers(order, 2);
            fds = order.descriptors();
            assertEquals(3, fds.size(), "two pidfds and an epoll instance: " + fds);
            assertEquals(List.of("anon_inode:[pidfd]", "anon_inode:[pidfd]", "anon_inode:[eventpoll]"),
                    fds.stream().map(OpenDescriptors::target).toList());
            order.close();
            assertEquals(List.of(), order.descriptors());
            order.close(); // idempotent
        }
        for (int fd : fds) {
            String now = OpenDescriptors.target(fd); // null: closed
            assertFalse("anon_inode:[pidfd]".equals(now) || "anon_inode:[eventpoll]".equals(now),
                    "fd " + fd + " still " + now);
        }
    }

    private List<Process> sleepers(ExitOrder order, int n) throws IOException {
        List<Process> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Process p = start("sleep", "600");
            order.register(i, p, p.toHandle());
            started.add(p);
        }
        return started;
    }

    private Process start(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        processes.add(p);
        return p;
    }
}
