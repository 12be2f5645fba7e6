package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.running;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Test;

/**
 * {@link ParentWatch#whenGone} in real processes: a starter JVM and the watcher JVM it started
 * ({@link WatchedPair}), stopped and killed by signals from here. A starter stopped alone ends its watcher after
 * the silence limit; a pair stopped whole (Ctrl-Z) goes on when continued; a killed starter ends it at once.
 */
class ParentWatchStopTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void aStarterStoppedAloneForLongerThanTheLimitEndsItsWatcher() throws Exception {
        try (Pair pair = Pair.start(Duration.ofSeconds(1))) {
            signal("STOP", pair.starter());
            long stoppedAt = System.nanoTime();
            String line = pair.next(LONG);
            assertTrue(Waits.until(10_000, () -> !running(pair.watcher)), "the watcher runs on: " + pair);
            long ms = (System.nanoTime() - stoppedAt) / 1_000_000;
            System.out.println("ParentWatchStopTest: SIGSTOP of the starter to the watcher's end: " + ms + " ms");
            Matcher m = Pattern.compile("ENDS " + pair.starter() + " stopped responding for ([0-9.]+) s")
                    .matcher(line);
            assertTrue(m.matches(), line);
            assertTrue(Double.parseDouble(m.group(1)) >= 1.0, line);
            assertTrue(ms <= 2_000, "the watcher ended " + ms + " ms after the SIGSTOP, limit 1 s: " + pair);
            signal("CONT", pair.starter());
            assertEquals(0, pair.endStarter());
            pair.assertNothingLeft();
        }
    }

    /**
     * The starter stopped first and seen stopped by the watcher, then the watcher, both for longer than the limit,
     * then continued watcher first: the watcher's first look after it was continued finds the starter still
     * stopped, but it did not run either, and counts again from there. The starter's normal end then ends it.
     */
    @Test
    void aPairStoppedWholeForLongerThanTheLimitGoesOnWhenContinued() throws Exception {
        Duration limit = Duration.ofSeconds(2);
        try (Pair pair = Pair.start(limit)) {
            signal("STOP", pair.starter());
            pair.awaitLooks();
            signal("STOP", pair.watcher);
            assertTrue(running(pair.watcher), "the watcher ended before it was stopped: " + pair);
            // The pause under test: the whole pair stopped for longer than the limit.
            Thread.sleep(limit.plusSeconds(1).toMillis());
            signal("CONT", pair.watcher);
            signal("CONT", pair.starter());
            pair.awaitLooks();
            assertTrue(running(pair.watcher), "the watcher ended: " + pair);
            assertNull(pair.poll(), "the watcher's line");
            assertEquals(0, pair.endStarter());
            assertEquals("ENDS " + pair.starter() + " is gone", pair.next(LONG));
            pair.assertNothingLeft();
        }
    }

    @Test
    void aKilledStarterEndsItsWatcherAsGone() throws Exception {
        try (Pair pair = Pair.start(Duration.ofSeconds(1))) {
            signal("KILL", pair.starter()); // not destroyForcibly: it closes the pipe that the watcher writes to
            assertEquals(137, pair.process.waitFor());
            assertEquals("ENDS " + pair.starter() + " is gone", pair.next(LONG));
            pair.assertNothingLeft();
        }
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + name + " " + pid);
    }

    /** A started {@link WatchedPair} whose watcher reported that it watches; closing it kills what runs. */
    private static final class Pair implements AutoCloseable {
        final Process process;
        final long watcher;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer transcript = new StringBuffer();

        private Pair(Process process) {
            this.process = process;
            BufferedReader reader = TestSupport.reader(process);
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (String l; (l = reader.readLine()) != null; ) {
                        transcript.append(l).append('\n');
                        lines.add(l);
                    }
                } catch (IOException e) {
                    transcript.append(e).append('\n');
                }
            });
            String w = next(LONG);
            assertTrue(w.startsWith("WATCHER "), w);
            this.watcher = Long.parseLong(w.substring(8));
            assertEquals("WATCHING " + process.pid(), next(LONG));
        }

        /** Starts the pair with {@code limit} as the silence limit. */
        static Pair start(Duration limit) throws IOException {
            ProcessBuilder builder = new ProcessBuilder(JvmCommand.of(WatchedPair.class.getName(), List.of("starter")))
                    .redirectErrorStream(true);
            builder.environment().put(CoordSettings.HEARTBEAT_TIMEOUT.name(), Double.toString(limit.toMillis() / 1e3));
            return new Pair(builder.start());
        }

        long starter() {
            return process.pid();
        }

        String next(Duration timeout) {
            try {
                String l = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (l == null) {
                    fail("no line within " + timeout + ": " + this);
                }
                return l;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        String poll() {
            return lines.poll();
        }

        /**
         * Waits until the watch thread of the watcher has gone to sleep twice more (a look between), or the watcher
         * has ended: a handshake with the watch, which says nothing on its own.
         */
        void awaitLooks() {
            long before = sleeps();
            assertTrue(before >= 0, "no watch thread: " + this);
            assertTrue(Waits.until(LONG.toMillis(), () -> !running(watcher) || sleeps() >= before + 2),
                    "the watch made no look: " + this);
        }

        /** The voluntary context switches of the watcher's watch thread: one each time it sleeps. */
        private long sleeps() {
            String comm = ("cudaipc4j-parent-watch-" + starter()).substring(0, 15);
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(watcher), "task"))) {
                for (Path task : tasks.toList()) {
                    if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
                        for (String l : Files.readAllLines(task.resolve("status"))) {
                            if (l.startsWith("voluntary_ctxt_switches:")) {
                                return Long.parseLong(l.substring(l.indexOf(':') + 1).strip());
                            }
                        }
                    }
                }
            } catch (IOException e) {
                return -1; // ended: the wait looks at that
            }
            return -1;
        }

        /** Closes the starter's standard input and returns its exit status. */
        int endStarter() throws IOException, InterruptedException {
            process.getOutputStream().close();
            assertTrue(process.waitFor(LONG.toMillis(), TimeUnit.MILLISECONDS), "the starter runs on: " + this);
            return process.exitValue();
        }

        void assertNothingLeft() {
            assertTrue(Waits.until(LONG.toMillis(), () -> !running(watcher) && !running(starter())),
                    "left running: " + this);
        }

        @Override
        public String toString() {
            return "starter " + starter() + ", watcher " + watcher + "\n--- output\n" + transcript;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            for (long pid : new long[] {starter(), watcher}) {
                if (running(pid)) {
                    new ProcessBuilder("kill", "-CONT", Long.toString(pid)).start().waitFor();
                    new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
                }
            }
            Waits.until(5_000, () -> !running(watcher) && !running(starter()));
        }
    }
}
