package org.cudaipc4j.simpleipc.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.simpleipc.kernels.MismatchCount;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Test;

/** The backend as simpleIPC uses it: export in this JVM, attach and fill in a second one, check here. */
@GpuTest
class CudaBackendGpuTest {
    private static final long BYTES = 64L << 20;

    @Test
    void childFillsTheParentsExportWithEitherKernel() {
        try (CudaBackend backend = new CudaBackend()) {
            List<String> log = new ArrayList<>();
            List<Integer> selected = backend.selectDevices(List.of(), 32, log::add);
            assertFalse(selected.isEmpty());
            assertEquals(0, selected.getFirst());
            backend.prepareDevices(selected);
            runChild(backend, BuiltinKernels.Fill.VEC16, (byte) 7, "kernel VEC16");
            runChild(backend, BuiltinKernels.Fill.SIMPLE, (byte) 9, "kernel SIMPLE");
        }
    }

    private static void runChild(CudaBackend backend, BuiltinKernels.Fill fill, byte value, String kernel) {
        try (CudaExport export = backend.export(0, BYTES)) {
            assertEquals(64, export.memoryHandle().length);
            assertEquals(64, export.eventHandle().length);
            export.memory().memset((byte) 0);
            JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(120), BackendChild.class, List.of(), "fill",
                    "0", HexFormat.of().formatHex(export.memoryHandle()), HexFormat.of().formatHex(export.eventHandle()),
                    Long.toString(BYTES), Integer.toString(value), fill.name());
            assertEquals(0, r.exitCode(), r.describe());
            assertTrue(r.stdout().startsWith(kernel + " grid "), r.describe());
            export.event().synchronize();
            try (BuiltinKernels kernels = BuiltinKernels.load(export.memory().context());
                 Stream stream = Stream.create(export.memory().context(), true)) {
                assertEquals(new MismatchCount(0, -1), kernels.countMismatches(export.memory(), value, stream));
            }
            assertEquals(value, export.memory().read(BYTES - 1, 1)[0]);
            export.close();
            export.close();
        }
    }

    @Test
    void selectionRulesAndErrors() {
        try (CudaBackend backend = new CudaBackend()) {
            int count = Device.count();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> backend.selectDevices(List.of(count), 32, s -> { }));
            assertEquals("no CUDA device " + count + " (" + count + " present)", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> backend.selectDevices(List.of(0, 0), 32, s -> { }));
            assertEquals(List.of(0), backend.selectDevices(List.of(0), 32, s -> { }));
            assertEquals(1, backend.selectDevices(List.of(), 1, s -> { }).size());
        }
    }

    @Test
    void progressMarkersFollowTheStream() throws Exception {
        try (CudaBackend backend = new CudaBackend(); CudaAttachment att = backend.attach(0)) {
            assertThrows(IllegalArgumentException.class, () -> att.reached(0));
            long last = -1;
            // More markers than events in the ring: the oldest read as passed once their event is reused.
            for (int i = 0; i < 3 * Backend.Attachment.MARKERS; i++) {
                last = att.mark();
            }
            assertEquals(3L * Backend.Attachment.MARKERS - 1, last);
            long lastMarker = last;
            assertTrue(Waits.until(10_000, () -> att.reached(lastMarker)), "marker not passed within 10 s");
            assertTrue(att.reached(0));
            long next = last + 1;
            assertThrows(IllegalArgumentException.class, () -> att.reached(next));
        }
    }

    @Test
    void attachmentBelongsToItsThreadAndClosesWhatItOpened() throws Exception {
        try (CudaBackend parent = new CudaBackend(); CudaBackend child = new CudaBackend()) {
            CudaExport export = parent.export(0, 4096);
            CudaAttachment att = child.attach(0);
            assertEquals(BuiltinKernels.Fill.VEC16, att.fillKernel());
            org.cudaipc4j.simpleipc.backend.BackendException own = assertThrows(
                    org.cudaipc4j.simpleipc.backend.BackendException.class,
                    () -> att.openBuffer(export.memoryHandle(), 4096));
            assertEquals("opening shared memory on device 0 failed: IPC memory handle was exported by this process;"
                    + " open it in another process", own.getMessage());
            assertTrue(own.getCause() instanceof IllegalArgumentException, String.valueOf(own.getCause()));
            AtomicReference<Throwable> fromOtherThread = new AtomicReference<>();
            Thread t = Thread.ofPlatform().name("intruder").start(() -> {
                try {
                    att.openEvent(export.eventHandle());
                } catch (Throwable x) {
                    fromOtherThread.set(x);
                }
            });
            t.join();
            assertTrue(fromOtherThread.get() instanceof IllegalStateException, String.valueOf(fromOtherThread.get()));
            assertTrue(fromOtherThread.get().getMessage().contains("belongs to thread"));
            Thread v = Thread.ofVirtual().start(() -> {
                try {
                    child.attach(0);
                } catch (Throwable x) {
                    fromOtherThread.set(x);
                }
            });
            v.join();
            assertTrue(fromOtherThread.get().getMessage().startsWith("attach from a platform thread"),
                    fromOtherThread.get().getMessage());
            att.close();
            att.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> att.openEvent(export.eventHandle()));
            assertEquals("this CUDA attachment is closed", closed.getMessage());
        }
    }
}
