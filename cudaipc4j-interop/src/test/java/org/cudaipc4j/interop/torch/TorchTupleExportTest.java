package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.ipc.PoolBuffer;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handing torch its own tuple from a Java export, without a GPU: the counter file as torch's producer makes it, one
 * new slot per tuple, releases done exactly as torch's reader does them ({@link CounterFiles#releaseAsTorch}), and
 * the buffer freed only when every slot reads 0.
 */
class TorchTupleExportTest {
    private static final UUID DEVICE = UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");
    private static final long BYTES = 4 << 20;
    private static final Duration SHORT = Duration.ofMillis(50);

    @TempDir
    Path dir;

    private final AtomicInteger freed = new AtomicInteger();
    private final AtomicInteger synced = new AtomicInteger();

    private TorchTupleExport export() {
        byte[] handle = new byte[64];
        for (int i = 0; i < 64; i++) {
            handle[i] = (byte) i;
        }
        Descriptor legacy = Descriptor.legacy(DEVICE, BYTES, new Descriptor.Exporter(4242, 4026531836L, 9), handle);
        return new TorchTupleExport(legacy, 0, synced::incrementAndGet, freed::incrementAndGet, dir);
    }

    private static TensorLayout floats(long n) {
        return TensorLayout.contiguous(DType.FLOAT32, n);
    }

    private void release(Descriptor d) {
        CounterFiles.releaseAsTorch(dir, d.torch().refCounterFile(), d.torch().refCounterOffset());
    }

    @Test
    void theCounterFileIsTorchsAndTheTupleCarriesTheRawHandleAndNoEvent() throws Exception {
        try (TorchTupleExport e = export()) {
            Descriptor d = e.mint(TensorLayout.of(DType.FLOAT32, new long[] {512, 256}, new long[] {256, 1}, 4),
                    1 << 20, 1 << 20);
            assertEquals(1, synced.get(), "the context is synchronized before the tuple leaves");
            Descriptor.Torch t = d.torch();
            String name = t.refCounterFile();
            TorchCounterFile.checkName(name);
            assertTrue(name.startsWith("/torch_" + ProcessHandle.current().pid() + "_") && name.endsWith("_0"), name);
            Path file = dir.resolve(name.substring(1));
            assertEquals(TorchCounterFile.FILE_BYTES, Files.size(file));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals(1, CounterFiles.processCount(dir, name), "held at 1 by the exporter, as torch's producer");
            assertEquals(1, CounterFiles.slot(dir, name, 0));
            assertEquals(0, CounterFiles.slot(dir, name, 1));
            assertEquals(64, t.handle().length, "the raw cudaIpcMemHandle_t every torch reader takes");
            TorchHandle h = TorchHandle.parse(t.handle());
            assertEquals(0, h.version(), "raw, no version byte");
            assertEquals(TorchHandle.Type.CUDA_MALLOC, h.type());
            assertEquals(1 << 20, t.storageOffsetBytes());
            assertEquals(1 << 20, t.storageBytes());
            assertEquals(0, t.refCounterOffset());
            assertEquals(Descriptor.Kind.TORCH, d.kind());
            assertEquals(DEVICE, d.deviceUuid());
            assertNull(d.event(), "event_sync_required=False: nothing to wait on");
            assertEquals(4, d.tensor().offset());
            assertEquals(d, DescriptorJson.fromJson(DescriptorJson.toJson(d)), "the wire form round-trips");
            release(d);
            assertEquals(0, CounterFiles.slot(dir, name, 0));
            assertEquals(1, CounterFiles.processCount(dir, name), "the reader added and removed itself");
            assertTrue(Files.exists(file), "the reader did not unlink the exporter's file");
        }
        assertEquals(1, freed.get());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "the counter file is removed at close");
        }
    }

    @Test
    void theCounterFilesAreWrittenDownUntilClosedAndThoseOfAnEndedJvmAreRemovedByTheNextExport() throws Exception {
        long ended = (1L << 22) + 1; // above the largest pid the kernel hands out: no process, now or later
        assertFalse(ProcessHandle.of(ended).isPresent());
        Path leftCounter = Files.writeString(dir.resolve("torch_" + ended + "_5_0"), "x");
        Path leftRecord = Files.writeString(dir.resolve(TupleCounterRecord.PREFIX + ended + "-3"),
                "/torch_" + ended + "_5_0\n");
        TorchTupleExport e = export();
        Descriptor a = e.mint(floats(1024));
        assertFalse(Files.exists(leftCounter), "the counter file of an exporter that died is removed");
        assertFalse(Files.exists(leftRecord));
        java.util.List<Path> records;
        try (var s = Files.list(dir)) {
            records = s.filter(p -> p.getFileName().toString().startsWith(TupleCounterRecord.PREFIX)).toList();
        }
        assertEquals(1, records.size());
        assertEquals(java.util.List.of(a.torch().refCounterFile()), Files.readAllLines(records.getFirst()));
        release(a);
        e.close(SHORT);
        assertFalse(Files.exists(records.getFirst()), "the record goes with the counter files");
        try (var s = Files.list(dir)) {
            assertEquals(java.util.List.of(), s.toList());
        }
    }

    @Test
    void everyTupleGetsANewSlotAndTheBufferIsFreedOnlyWhenAllAreZero() {
        TorchTupleExport e = export();
        Descriptor a = e.mint(floats(1024));
        Descriptor b = e.mint(floats(1024));
        Descriptor c = e.mint(floats(16), 8192, 64);
        assertEquals(0, a.torch().refCounterOffset());
        assertEquals(1, b.torch().refCounterOffset());
        assertEquals(2, c.torch().refCounterOffset());
        assertEquals(a.torch().refCounterFile(), c.torch().refCounterFile());
        assertEquals(3, e.held());
        release(b);
        release(a);
        assertEquals(1, e.held());
        TorchInteropException held = assertThrows(TorchInteropException.class, () -> e.close(SHORT));
        assertTrue(held.getMessage().startsWith("1 of 3 torch tuples still hold the buffer after 50 ms (slot 2 of "
                + c.torch().refCounterFile() + " = 1): nothing freed"), held.getMessage());
        assertEquals(0, freed.get(), "never freed while a consumer may map it");
        assertFalse(e.isClosed());
        assertTrue(Files.exists(e.counterFiles().getFirst()));
        e.mint(floats(1024)).torch();
        assertEquals(2, e.held(), "still open: more tuples can be minted");
        release(c);
        assertEquals(1, e.held());
        assertEquals(3, e.minted() - e.held());
    }

    @Test
    void closeWaitsForTheLastRelease() throws Exception {
        TorchTupleExport e = export();
        Descriptor d = e.mint(floats(1024));
        Thread consumer = Thread.ofPlatform().start(() -> release(d)); // whenever it runs, close sees it
        e.close(Duration.ofSeconds(30));
        consumer.join();
        assertEquals(1, freed.get());
        assertTrue(e.isClosed());
        e.close();
        assertEquals(1, freed.get(), "idempotent");
        assertEquals(0, e.held());
        assertThrows(IllegalStateException.class, () -> e.mint(floats(1)));
    }

    @Test
    void aTupleRebuiltTwiceIsShownAndTheBufferIsNeverFreedHere() {
        TorchTupleExport e = export();
        Descriptor d = e.mint(floats(1024));
        release(d);
        release(d); // a second rebuild of the same tuple (another process, or torch's cache hit)
        assertEquals(-1, CounterFiles.slot(dir, d.torch().refCounterFile(), 0));
        assertEquals(0, e.held());
        TorchInteropException x = assertThrows(TorchInteropException.class, () -> e.close(SHORT));
        assertTrue(x.getMessage().startsWith("a torch tuple was given back more than once (slot 0 of "
                + d.torch().refCounterFile() + " = -1): it was rebuilt twice"), x.getMessage());
        assertEquals(0, freed.get());
        assertTrue(e.isClosed());
        assertFalse(Files.exists(dir.resolve(d.torch().refCounterFile().substring(1))));
    }

    @Test
    void aNamedConsumersExitCountsAsItsRelease() throws Exception {
        TorchTupleExport e = export();
        Process consumer = new ProcessBuilder("sleep", "600").start();
        try {
            Descriptor d = e.mint(floats(1024), 0, 4096, consumer.toHandle());
            Descriptor other = e.mint(floats(1024), 0, 4096);
            assertEquals(2, e.held());
            consumer.destroyForcibly().waitFor();
            assertEquals(1, CounterFiles.slot(dir, d.torch().refCounterFile(), 0), "a killed torch reader's slot"
                    + " stays 1");
            assertEquals(1, e.held(), "its exit counts as the release");
            release(other);
            e.close(SHORT);
            assertEquals(1, freed.get());
        } finally {
            consumer.destroyForcibly();
        }
    }

    @Test
    void aNewCounterFileAfterTenThousandSlots() {
        try (TorchTupleExport e = export()) {
            Descriptor last = null;
            for (int i = 0; i < TorchCounterFile.SLOTS; i++) {
                last = e.mint(floats(1));
                release(last);
            }
            assertEquals(TorchCounterFile.SLOTS - 1, last.torch().refCounterOffset());
            Descriptor next = e.mint(floats(1));
            assertEquals(0, next.torch().refCounterOffset());
            assertTrue(next.torch().refCounterFile().endsWith("_1"), next.torch().refCounterFile());
            assertEquals(2, e.counterFiles().size());
            release(next);
        }
        assertEquals(1, freed.get());
    }

    @Test
    void storagesTorchCouldNotKeepAreRefusedInOneLine() {
        try (TorchTupleExport e = export()) {
            assertEquals("a torch tuple needs a storage of at least 1 byte, got 0: torch's reader opens nothing for"
                    + " an empty storage and never gives its slot back", assertThrows(IllegalArgumentException.class,
                    () -> e.mint(floats(0), 0, 0)).getMessage());
            assertEquals("a storage of 4096 bytes at offset 4194304 does not fit the buffer's 4194304 bytes",
                    assertThrows(IllegalArgumentException.class, () -> e.mint(floats(1), BYTES, 4096)).getMessage());
            assertEquals("storage offset 2 is not a multiple of the float32 element size 4", assertThrows(
                    IllegalArgumentException.class, () -> e.mint(floats(1), 2, 4)).getMessage());
            assertThrows(IllegalArgumentException.class, () -> e.mint(floats(2048), 0, 4096), "tensor past storage");
            Descriptor d = e.mint(floats(1024), 0, 4096);
            assertEquals("a storage at offset 0 was minted with 4096 bytes: torch's reader keys its cache by (handle,"
                    + " storage offset) and would reuse that size; give every storage offset one size",
                    assertThrows(IllegalArgumentException.class, () -> e.mint(floats(1), 0, 8192)).getMessage());
            assertEquals(1, e.minted(), "a refused tuple takes no slot");
            release(d);
        }
    }

    @Test
    void vmmAndPoolMemoryAreRefusedSayingWhy() {
        assertTrue(TorchTupleExport.refusal(DeviceBuffer.class).isEmpty());
        String vmm = TorchTupleExport.refusal(VmmAllocation.class).orElseThrow();
        assertTrue(vmm.startsWith("a VMM allocation has no torch tuple: torch would take it for an expandable"
                + " segment"), vmm);
        String pool = TorchTupleExport.refusal(PoolBuffer.class).orElseThrow();
        assertTrue(pool.startsWith("a memory-pool allocation has no torch tuple: torch's tuple carries a"
                + " legacy IPC handle"), pool);
        for (String line : new String[] {vmm, pool}) {
            assertFalse(line.contains("\n"));
            assertTrue(line.endsWith("open it with cudaipc4j.open(descriptor)"), line);
        }
    }
}
