package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.PythonCupy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** IPC between real processes: a second JVM, and CuPy (the CUDA runtime) in both directions. */
@GpuTest
class IpcGpuTest {
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(120);
    private static final long BYTES = (1 << 20) + 3;

    private static Context ctx;
    private static Stream stream;

    @BeforeAll
    static void open() {
        ctx = Context.retainPrimary(Device.get(0));
        stream = Stream.create(ctx, true);
    }

    @AfterAll
    static void close() {
        Closeables.closeAll(stream, ctx);
    }

    @Test
    void theExportingProcessCannotOpenItsOwnHandle() {
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, 4096)) {
            IpcMemHandle h = IpcMemHandle.export(buf);
            assertEquals(h, IpcMemHandle.export(buf), "one allocation, one handle");
            IpcMemHandle received = IpcMemHandle.fromBytes(h.toBytes());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> received.open(ctx, true));
            assertEquals("IPC memory handle was exported by this process; open it in another process",
                    e.getMessage());
            buf.close();
            assertThrows(IllegalStateException.class, () -> IpcMemHandle.export(buf), "a closed buffer exports nothing");
        }
    }

    @Test
    void onlyAnInterprocessEventExportsAHandle() {
        try (Event timing = Event.create(ctx);
             Event ipc = Event.create(ctx, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> IpcEventHandle.export(timing));
            assertTrue(e.getMessage().startsWith("only an event created with INTERPROCESS and DISABLE_TIMING"),
                    e.getMessage());
            assertEquals(64, IpcEventHandle.export(ipc).toBytes().length);
            ipc.close();
            assertThrows(IllegalStateException.class, () -> IpcEventHandle.export(ipc), "a closed event exports nothing");
        }
    }

    @Test
    void secondJvmWritesWhatThisOneExported() {
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, BYTES);
             Event event = Event.create(ctx, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING)) {
            buf.memset((byte) 0x11);
            JavaProcess.Result r = JavaProcess.run(CHILD_TIMEOUT, IpcChild.class, List.of(), "write",
                    IpcMemHandle.export(buf).hex(), IpcEventHandle.export(event).hex(), Long.toString(BYTES), "17", "34");
            assertEquals(0, r.exitCode(), r.describe());
            stream.waitEvent(event);
            stream.synchronize();
            byte[] back = buf.read(0, (int) BYTES);
            for (int i = 0; i < back.length; i++) {
                assertEquals(34, back[i], "byte " + i);
            }
        }
    }

    /**
     * A killed exporter leaves the driver's files of its interprocess state in /dev/shm; they carry its pid, so whoever
     * learns of the death removes them.
     */
    @Test
    void aKilledExportersDriverFilesAreFoundAndRemoved() throws Exception {
        try (JavaProcess.Interactive child = JavaProcess.start(
                JavaProcess.command(IpcChild.class, List.of(), "export", Long.toString(BYTES), "85"))) {
            field(child.readLine(CHILD_TIMEOUT), "MEM");
            IpcEventHandle evt = IpcEventHandle.fromHex(field(child.readLine(CHILD_TIMEOUT), "EVENT"));
            try (Event event = evt.open(ctx)) {
                assertTrue(event.isOpenedFromHandle());
            }
            java.util.List<java.nio.file.Path> files = DriverFiles.of(child.pid());
            String all;
            try (java.util.stream.Stream<java.nio.file.Path> shm = java.nio.file.Files.list(java.nio.file.Path.of("/dev/shm"))) {
                all = shm.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("cuda.")).toList().toString();
            }
            assertTrue(!files.isEmpty(), "no driver file names pid " + child.pid() + " (hex "
                    + Long.toHexString(child.pid()) + "); the driver's files: " + all);
            ProcessHandle exporter = ProcessHandle.of(child.pid()).orElseThrow();
            exporter.destroyForcibly();
            exporter.onExit().get();
            assertTrue(files.stream().allMatch(java.nio.file.Files::exists), "the killed exporter left them: " + files);
            assertEquals(files.size(), DriverFiles.removeOf(child.pid()));
            assertEquals(List.of(), DriverFiles.of(child.pid()));
            System.out.println("driver files of a killed exporter: " + files);
        }
    }

    @Test
    void thisJvmOpensAnotherJvmsExportOncePerContext() {
        try (JavaProcess.Interactive child = JavaProcess.start(
                JavaProcess.command(IpcChild.class, List.of(), "export", Long.toString(BYTES), "85"))) {
            IpcMemHandle mem = IpcMemHandle.fromHex(field(child.readLine(CHILD_TIMEOUT), "MEM"));
            IpcEventHandle evt = IpcEventHandle.fromHex(field(child.readLine(CHILD_TIMEOUT), "EVENT"));
            try (IpcMappedMemory buf = mem.open(ctx, true); Event event = evt.open(ctx)) {
                assertTrue(buf.bytes() >= BYTES, "mapping of " + buf.bytes() + " bytes");
                assertTrue(event.isOpenedFromHandle());
                stream.waitEvent(event);
                stream.synchronize();
                assertNull(DeviceBytes.firstDifference(buf, BYTES, (byte) 85));
                assertEquals(85, buf.read(BYTES - 1, 1)[0]);
                IllegalStateException twice = assertThrows(IllegalStateException.class, () -> mem.open(ctx, true));
                assertTrue(twice.getMessage().contains("is already open in the primary context of device 0"),
                        twice.getMessage());
                buf.close();
                buf.close();
                try (IpcMappedMemory again = mem.open(ctx, 4096, true)) {
                    assertEquals(4096, again.bytes(), "the declared size");
                    assertEquals(85, again.read(4095, 1)[0]);
                }
                IllegalArgumentException larger = assertThrows(IllegalArgumentException.class,
                        () -> mem.open(ctx, BYTES + (4L << 20), true));
                assertTrue(larger.getMessage().startsWith("the IPC allocation has "), larger.getMessage());
                try (IpcMappedMemory third = mem.open(ctx, true)) {
                    assertEquals(85, third.read(0, 1)[0], "a failed open leaves the handle openable");
                }
            }
            child.writeLine("done");
            JavaProcess.Result r = child.finish(CHILD_TIMEOUT);
            assertEquals(0, r.exitCode(), r.describe());
        }
    }

    @Test
    void cupyWritesIntoMemoryThisJvmExported() {
        PythonCupy.assumeAvailable();
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, BYTES)) {
            buf.memset((byte) 0x2a);
            JavaProcess.Result r = JavaProcess.runCommand(CHILD_TIMEOUT, PythonCupy.command("open-and-write",
                    IpcMemHandle.export(buf).hex(), Long.toString(BYTES), "42", "201"));
            assertEquals(0, r.exitCode(), r.describe());
            byte[] back = buf.read(0, (int) BYTES);
            for (int i = 0; i < back.length; i++) {
                assertEquals((byte) 201, back[i], "byte " + i);
            }
        }
    }

    @Test
    void thisJvmReadsMemoryCupyExported() {
        PythonCupy.assumeAvailable();
        try (JavaProcess.Interactive cupy = JavaProcess.start(
                PythonCupy.command("export", Long.toString(BYTES), "99"))) {
            IpcMemHandle mem = IpcMemHandle.fromHex(cupy.readLine(CHILD_TIMEOUT).strip());
            try (IpcMappedMemory buf = mem.open(ctx, true)) {
                assertTrue(buf.bytes() >= BYTES, "mapping of " + buf.bytes() + " bytes");
                byte[] back = buf.read(0, (int) BYTES);
                for (int i = 0; i < back.length; i++) {
                    assertEquals(99, back[i], "byte " + i);
                }
                buf.memset(0, BYTES, (byte) 7);
                assertNull(DeviceBytes.firstDifference(buf, BYTES, (byte) 7));
            }
            cupy.writeLine("done");
            JavaProcess.Result r = cupy.finish(CHILD_TIMEOUT);
            assertEquals(0, r.exitCode(), r.describe());
        }
    }

    private static String field(String line, String name) {
        assertTrue(line.startsWith(name + " "), "expected " + name + ": " + line);
        return line.substring(name.length() + 1).strip();
    }
}
