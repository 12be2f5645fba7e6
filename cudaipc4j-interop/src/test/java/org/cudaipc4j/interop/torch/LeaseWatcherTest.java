package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Beyond torch: a reader JVM that dies holding slots gets them given back by its watcher within 5 s; one that
 * closes leaves neither a watcher nor a file behind. Real processes, handshakes on their output.
 */
class LeaseWatcherTest {
    private static final int SLOTS = 8;
    private static final Duration START = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private record Holder(JavaProcess.Interactive process, long watcher, Path book) {}

    private Holder start(int count, String... names) {
        return start(List.of(), count, names);
    }

    /** A holder JVM started with {@code jvmOptions}; lines its JVM prints before its own (a log's) are skipped. */
    private Holder start(List<String> jvmOptions, int count, String... names) {
        return start(jvmOptions, Map.of(), count, names);
    }

    /** As {@link #start(List, int, String...)}, with {@code environment} added to the holder's. */
    private Holder start(List<String> jvmOptions, Map<String, String> environment, int count, String... names) {
        List<String> args = new ArrayList<>(List.of(dir.toString(), Integer.toString(count)));
        args.addAll(List.of(names));
        JavaProcess.Interactive p = JavaProcess.start(JavaProcess.command(LeaseHolder.class, jvmOptions,
                args.toArray(String[]::new)), environment);
        String line = p.readLine(START);
        for (int skipped = 0; line.startsWith("[") && skipped < 50; skipped++) {
            line = p.readLine(START);
        }
        String[] ready = line.split(" ");
        assertEquals("ready", ready[0], line);
        return new Holder(p, Long.parseLong(ready[1]), Path.of(ready[2]));
    }

    private boolean allSlotsAre(String name, long value) {
        for (int i = 0; i < SLOTS; i++) {
            if (CounterFiles.slot(dir, name, i) != value) {
                return false;
            }
        }
        return true;
    }

    private static boolean gone(long pid) {
        return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
    }

    @Test
    void aKilledReadersSlotsComeBackWithinFiveSeconds() {
        String name = CounterFiles.create(dir, SLOTS + 1);
        Holder h = start(SLOTS, name);
        try (JavaProcess.Interactive p = h.process()) {
            assertTrue(allSlotsAre(name, 1), "held, not incremented");
            assertTrue(Files.exists(h.book()));
            ProcessHandle reader = ProcessHandle.of(p.pid()).orElseThrow();
            assertTrue(reader.destroyForcibly(), "SIGKILL sent");
            assertTrue(Waits.until(5_000, () -> allSlotsAre(name, 0)), "slots back to 0 within 5 s");
            assertTrue(Waits.until(5_000, () -> gone(h.watcher())), "the watcher ends after its work");
            assertFalse(Files.exists(h.book()), "the watcher removed the lease book");
            assertEquals(1, CounterFiles.slot(dir, name, SLOTS), "a slot the reader never took is left alone");
            assertEquals(1, CounterFiles.processCount(dir, name), "the process count is never touched");
        }
    }

    @Test
    void aKilledReaderOfAHundredThousandSharesGetsEverySlotBackWithinFiveSeconds() {
        int shares = 100_000;
        String[] names = new String[shares / TorchCounterFile.SLOTS];
        for (int f = 0; f < names.length; f++) {
            names[f] = CounterFiles.create(dir, TorchCounterFile.SLOTS);
        }
        Holder h = start(shares, names);
        try (JavaProcess.Interactive p = h.process()) {
            assertTrue(Arrays.stream(names).allMatch(n -> Arrays.stream(CounterFiles.slots(dir, n)).allMatch(v -> v == 1)),
                    "held, not incremented");
            long killed = System.nanoTime();
            assertTrue(ProcessHandle.of(p.pid()).orElseThrow().destroyForcibly(), "SIGKILL sent");
            assertTrue(Waits.until(5_000, () -> Arrays.stream(names).allMatch(
                    n -> Arrays.stream(CounterFiles.slots(dir, n)).allMatch(v -> v == 0))), "every slot back within 5 s");
            System.out.printf("%d slots back %.0f ms after the SIGKILL%n", shares, (System.nanoTime() - killed) / 1e6);
            assertTrue(Waits.until(5_000, () -> gone(h.watcher())), "the watcher ends after its work");
            assertFalse(Files.exists(h.book()), "the watcher removed the lease book");
            assertTrue(leaseBooksOf(p.pid()).isEmpty(), "and every page of it");
            for (String n : names) {
                assertEquals(1, CounterFiles.processCount(dir, n), "the process count is never touched");
            }
        }
    }

    /** The lease book pages in the book's directory made by {@code pid}. */
    private static List<Path> leaseBooksOf(long pid) {
        try (var files = Files.list(SharedSegment.directory())) {
            return files.filter(f -> f.getFileName().toString().startsWith(SharedSegment.PREFIX + pid + "-")
                    && f.getFileName().toString().endsWith("-torchleases")).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aReaderThatExitsWithoutClosingGetsItsSlotsGivenBackToo() {
        String name = CounterFiles.create(dir, SLOTS);
        Holder h = start(SLOTS, name);
        try (JavaProcess.Interactive p = h.process()) {
            p.writeLine("exit");
            assertTrue(Waits.until(5_000, () -> allSlotsAre(name, 0)), "slots back to 0 within 5 s");
            assertTrue(Waits.until(5_000, () -> gone(h.watcher())));
            assertFalse(Files.exists(h.book()));
        }
    }

    /**
     * A service's JVM options, on its command line or in its environment, that print on standard output (a log),
     * record to a file (a flight recording) or size the heap (above the watcher's own maximum) reach the watcher's
     * JVM or are kept from it: either way its start does not fail, and the reader's leases work.
     */
    @Test
    void aReaderWhoseJvmLogsOnStandardOutputOrRecordsAFlightOrSizesItsHeapStartsItsWatcher() {
        String name = CounterFiles.create(dir, SLOTS);
        Holder h = start(List.of("-Xlog:gc:stdout", "-XX:StartFlightRecording:filename=" + dir.resolve("reader.jfr"),
                "-Xms64m"), Map.of("JAVA_TOOL_OPTIONS", "-Xms96m", "JDK_JAVA_OPTIONS", "-XX:MinHeapSize=80m"), SLOTS,
                name);
        JavaProcess.Interactive p = h.process();
        assertTrue(allSlotsAre(name, 1), "held");
        p.writeLine("close");
        String line = p.readLine(START);
        while (line.startsWith("[")) {
            line = p.readLine(START);
        }
        assertEquals("closed", line);
        JavaProcess.Result r = p.finish(START);
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(gone(h.watcher()));
        assertTrue(allSlotsAre(name, 0), "the reader gave every slot back once");
    }

    /** The watcher starts beside the reader's own work: leases closed before any lease waited for it end it too. */
    @Test
    void leasesClosedBeforeTheirWatcherWasReadyLeaveNoWatcher() {
        for (int i = 0; i < 3; i++) {
            TorchLeases leases = TorchLeases.start(dir, true);
            long watcher = leases.watcherPid().orElseThrow();
            Path book = leases.bookPath();
            leases.close();
            assertTrue(gone(watcher), "close waited for the watcher's end");
            assertFalse(Files.exists(book), "the book is removed");
        }
    }

    @Test
    void aNormalCloseLeavesNoWatcherAndNoFile() {
        String name = CounterFiles.create(dir, SLOTS);
        Holder h = start(SLOTS, name);
        JavaProcess.Interactive p = h.process();
        p.writeLine("close");
        assertEquals("closed", p.readLine(START));
        JavaProcess.Result r = p.finish(START);
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(gone(h.watcher()), "close waited for the watcher's end");
        assertFalse(Files.exists(h.book()), "the book is removed");
        assertTrue(allSlotsAre(name, 0), "the reader gave every slot back once");
        assertEquals(1, CounterFiles.processCount(dir, name));
        assertTrue(r.stderr().isEmpty(), r.describe());
    }
}
