package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reference-counter contract against counter files laid out as torch's, in this process (no watcher). */
class TorchLeasesTest {
    @TempDir
    Path dir;

    private static TorchStorageKey key(int storage) {
        return new TorchStorageKey("c:" + storage, 0, 0, 4096);
    }

    @Test
    void theWatcherStartsWithoutTheReadersStartUpCacheHeapSizesAndLogs() {
        List<String> reader = List.of("/jdk/bin/java", "-XX:-UsePerfData", "-XX:AOTCache=/x/reader.aot",
                "-XX:AOTMode=on", "-XX:SharedArchiveFile=/x/app.jsa", "-Xms2g", "-Xmx4g", "-XX:InitialHeapSize=2g",
                "-XX:MinHeapSize=1g", "-XX:MaxHeapSize=4g", "-XX:SoftMaxHeapSize=3g", "-Xlog:gc:file=app.log",
                "-Xloggc:gc.log", "-Dapp=1", "-cp", "a.jar");
        assertEquals(List.of("/jdk/bin/java", "-XX:-UsePerfData", "-Dapp=1", "-cp", "a.jar"),
                TorchLeases.watcherOptions(reader));
    }

    @Test
    void oneShareOneReleaseAndTheProcessCountIsNeverTouched() {
        String name = CounterFiles.create(dir, 2);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            Lease a = leases.acquire(key(1), name, 0);
            assertFalse(a.cacheHit());
            assertEquals(1, CounterFiles.slot(dir, name, 0), "held, not incremented");
            assertEquals(1, CounterFiles.processCount(dir, name));
            assertEquals(ReleaseOutcome.RELEASED, a.release());
            assertEquals(0, CounterFiles.slot(dir, name, 0));
            assertEquals(ReleaseOutcome.ALREADY_RELEASED, a.release(), "a second release does nothing");
            assertEquals(0, CounterFiles.slot(dir, name, 0));
            assertEquals(1, CounterFiles.slot(dir, name, 1), "the other slot is left alone");
            assertEquals(1, CounterFiles.processCount(dir, name));
            assertEquals(0, leases.openStorages());
        }
        assertEquals(1, CounterFiles.processCount(dir, name));
    }

    @Test
    void aSecondShareOfAnOpenStorageIsReleasedAtOnceAndTheFirstSlotWhenTheLastLeaseCloses() {
        String name = CounterFiles.create(dir, 3);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            Lease first = leases.acquire(key(1), name, 0);
            Lease again = leases.acquire(key(1), name, 1);
            assertTrue(again.cacheHit());
            assertEquals(ReleaseOutcome.RELEASED, again.releasedAtAcquire());
            assertEquals(0, CounterFiles.slot(dir, name, 1), "the hit's own slot went back at once");
            assertEquals(0, again.slot(), "it rides on the first share's slot");
            Lease other = leases.acquire(key(2), name, 2);
            assertFalse(other.cacheHit(), "another storage");
            assertEquals(ReleaseOutcome.STILL_OPEN, first.release());
            assertEquals(1, CounterFiles.slot(dir, name, 0));
            assertEquals(ReleaseOutcome.RELEASED, again.release());
            assertEquals(0, CounterFiles.slot(dir, name, 0));
            assertEquals(ReleaseOutcome.ALREADY_RELEASED, first.release());
            assertEquals(1, leases.openStorages());
        }
        assertEquals(0, CounterFiles.slot(dir, name, 2), "close gives back what is still held");
    }

    /**
     * A producer sharing the same storages again names a counter file no lease holds: its cache hits map that file
     * once, not once each, and close unmaps it.
     */
    @Test
    void hitsOnAFileNoLeaseHoldsMapItOnceAndCloseUnmapsIt() throws IOException {
        String first = CounterFiles.create(dir, 1);
        String again = CounterFiles.create(dir, 100);
        Path againPath = dir.resolve(again.substring(1)).toRealPath();
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            Lease held = leases.acquire(key(1), first, 0);
            List<Lease> hits = new ArrayList<>();
            for (int slot = 0; slot < 100; slot++) {
                Lease hit = leases.acquire(key(1), again, slot);
                assertTrue(hit.cacheHit());
                assertEquals(ReleaseOutcome.RELEASED, hit.releasedAtAcquire());
                assertEquals(0, CounterFiles.slot(dir, again, slot), "slot " + slot + " went back at once");
                hits.add(hit);
                assertEquals(1, mappingsOf(againPath), "after hit " + slot);
            }
            hits.forEach(Lease::release);
            held.release();
        }
        assertEquals(0, mappingsOf(againPath), "mapped after close");
    }

    /** {@return how many mappings of {@code file} this process holds} */
    private static long mappingsOf(Path file) throws IOException {
        String path = file.toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.endsWith(" " + path)).count();
    }

    @Test
    void aSlotGivenBackAlreadyIsRefusedAndNeverDrivenNegative() {
        String name = CounterFiles.create(dir, 1);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            TorchInteropException e = assertThrows(TorchInteropException.class,
                    () -> leases.acquire(key(1), name, 5));
            assertTrue(e.getMessage().contains("slot 5") && e.getMessage().contains("given back already"),
                    e.getMessage());
            try (TorchCounterFile f = TorchCounterFile.open(dir, name)) {
                assertEquals(ReleaseOutcome.RELEASED, f.decrement(0));
                assertEquals(ReleaseOutcome.ALREADY_ZERO, f.decrement(0));
                assertEquals(0, f.slot(0));
            }
            assertEquals(0, leases.openStorages());
        }
    }

    @Test
    void aGoneCounterFileIsTheProducerGone() throws IOException {
        String name = CounterFiles.create(dir, 2);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            Lease a = leases.acquire(key(1), name, 0);
            Files.delete(dir.resolve(name.substring(1)));
            assertEquals(ReleaseOutcome.PRODUCER_GONE, a.release());
            TorchInteropException e = assertThrows(TorchInteropException.class,
                    () -> leases.acquire(key(2), name, 1));
            assertTrue(e.getMessage().contains("does not exist: the producer has exited"), e.getMessage());
        }
        assertEquals(ReleaseOutcome.PRODUCER_GONE, TorchCounterFile.release(dir, name, 1));
    }

    @Test
    void aForeignCounterFileOrNameIsRefused() throws IOException {
        Files.write(dir.resolve("torch_1_2_0"), new byte[4096]);
        try (TorchLeases leases = TorchLeases.start(dir, false, 16)) {
            TorchInteropException e = assertThrows(TorchInteropException.class,
                    () -> leases.acquire(key(1), "/torch_1_2_0", 0));
            assertTrue(e.getMessage().contains("not a torch reference-counter file") && e.getMessage().contains(
                    "4096 bytes, torch's have 80064"), e.getMessage());
            for (String bad : new String[] {"torch_1", "/../etc/passwd", "/a/b", "/..", "/", "/cudaipc4j-1-2",
                    "/torch_1_2_0/../x", "/torch_a_2"}) {
                IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
                        () -> leases.acquire(key(1), bad, 0), bad);
                assertTrue(b.getMessage().contains("not a torch reference-counter name"), b.getMessage());
            }
            String name = CounterFiles.create(dir, 1);
            IllegalArgumentException slot = assertThrows(IllegalArgumentException.class,
                    () -> leases.acquire(key(1), name, 10000));
            assertTrue(slot.getMessage().contains("outside 0..9999"), slot.getMessage());
        }
    }

    @Test
    void theBookGrowsPastItsFirstPageAndTakesGivenBackEntriesAgain() {
        int shares = 100;
        String name = CounterFiles.create(dir, shares + 1);
        List<Lease> held = new ArrayList<>();
        try (TorchLeases leases = TorchLeases.start(dir, false, 2)) {
            for (int i = 0; i < shares; i++) {
                held.add(leases.acquire(key(i), name, i));
            }
            assertEquals(shares, leases.openStorages());
            assertEquals(ReleaseOutcome.RELEASED, held.get(7).release());
            Lease again = leases.acquire(key(shares), name, shares);
            assertFalse(again.cacheHit());
            assertEquals(shares, leases.openStorages());
            long[] slots = CounterFiles.slots(dir, name);
            for (int i = 0; i <= shares; i++) {
                assertEquals(i == 7 ? 0 : 1, slots[i], "slot " + i);
            }
        }
        assertTrue(Arrays.stream(CounterFiles.slots(dir, name)).allMatch(v -> v == 0), "close gives back every page's");
    }

    @Test
    void closeRemovesTheBookAndLeasesAfterCloseDoNothing() {
        String name = CounterFiles.create(dir, 1);
        TorchLeases leases = TorchLeases.start(dir, false, 4);
        Path book = leases.bookPath();
        assertTrue(Files.exists(book));
        Lease a = leases.acquire(key(1), name, 0);
        leases.close();
        leases.close();
        assertFalse(Files.exists(book));
        assertEquals(0, CounterFiles.slot(dir, name, 0));
        assertEquals(ReleaseOutcome.ALREADY_RELEASED, a.release());
        assertThrows(IllegalStateException.class, () -> leases.acquire(key(2), name, 0));
    }
}
