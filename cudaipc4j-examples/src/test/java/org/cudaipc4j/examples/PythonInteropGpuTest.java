package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.FdServer;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.interop.BinaryDescriptors;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.opening.Descriptors;
import org.cudaipc4j.interop.opening.OpenOptions;
import org.cudaipc4j.interop.opening.OpenedTensor;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.PythonModules;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Python on the other end, both ways: cuda.core imports a JVM's pool buffer and the JVM imports cuda.core's,
 * cuda.bindings maps a JVM's VMM allocation, PyTorch reads a JVM's buffer as a tensor without a copy. Each checks
 * every byte and writes back; the JVM checks what came back. No driver file of a Python process is left.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class PythonInteropGpuTest {
    private static final Duration LIMIT = Duration.ofSeconds(180);
    private static final long BYTES = (32L << 20) + 5;
    private static Context ctx;
    private static Stream stream;
    private static Path script;

    @BeforeAll
    static void open() throws Exception {
        PythonModules.assumeImportable("cuda.bindings", "numpy", "cuda.core");
        ctx = Context.retainPrimary(Device.get(0));
        stream = Stream.create(ctx, true);
        script = PythonScripts.extract("interop.py");
    }

    @AfterAll
    static void close() throws Exception {
        Closeables.closeAll(ctx);
        if (script != null) {
            Files.deleteIfExists(script);
        }
    }

    /** Sends {@code memory}'s export to {@code interop.py MODE} and checks what it wrote. */
    private static void pythonImports(String mode, DeviceMemory memory) throws Exception {
        memory.memset((byte) 17);
        try (FdServer server = FdServer.open(); SharedMemoryExport export = SharedMemoryExport.of(memory)) {
            JavaProcess.Interactive python = JavaProcess.start(List.of("python3", script.toString(), mode,
                    server.socket().toString(), "17", "71"));
            DriverFileLeaks.removeWhenEnded(python.pid());
            try (FdChannel channel = server.accept(LIMIT)) {
                channel.send(export.descriptor().toBytes(), Arrays.stream(export.fileDescriptors()).boxed().toList());
                try (FdMessage done = channel.receive(LIMIT)) {
                    assertEquals("done", new String(done.payload(), StandardCharsets.UTF_8));
                }
            }
            JavaProcess.Result r = python.finish(LIMIT);
            assertEquals(0, r.exitCode(), r.describe());
            System.out.println(r.stdout().strip());
        }
        assertNull(Bytes.firstDifference(memory, (byte) 71), "what Python wrote");
    }

    @Test
    void cudaCoreImportsAJvmPoolBuffer() throws Exception {
        MemoryPool pool = MemoryPool.create(ctx, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0);
        try {
            pythonImports("import-pool", pool.allocate(BYTES, stream));
        } finally {
            pool.close();
        }
    }

    @Test
    void pytorchReadsAJvmPoolBufferWithoutACopy() throws Exception {
        PythonModules.assumeImportable("torch");
        MemoryPool pool = MemoryPool.create(ctx, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0);
        try {
            pythonImports("torch-view", pool.allocate(BYTES, stream));
        } finally {
            pool.close();
        }
    }

    @Test
    void cudaBindingsMapsAJvmVmmAllocation() throws Exception {
        try (VmmAllocation a = VmmAllocation.create(ctx, BYTES, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR))) {
            pythonImports("import-vmm", a);
        }
    }

    @Test
    void theJvmImportsACudaCorePoolBuffer() throws Exception {
        try (FdServer server = FdServer.open()) {
            JavaProcess.Interactive python = JavaProcess.start(List.of("python3", script.toString(), "export-pool",
                    server.socket().toString(), Long.toString(BYTES), "23", "32"));
            DriverFileLeaks.removeWhenEnded(python.pid());
            try (FdChannel channel = server.accept(LIMIT)) {
                try (FdMessage m = channel.receive(LIMIT)) {
                    // The binary descriptor cuda.core's side sends, opened as any descriptor is, with its fd.
                    Descriptor d = BinaryDescriptors.fromBinary(SharedMemoryDescriptor.fromBytes(m.payload()));
                    int[] fds = m.fds().stream().mapToInt(OwnedFd::value).toArray();
                    int resources = ctx.openResources();
                    try (OpenedTensor memory = Descriptors.open(d, ctx, stream,
                            OpenOptions.defaults().withFds(fds))) {
                        assertEquals(BYTES, memory.bytes());
                        assertNull(Bytes.firstDifference(memory, (byte) 23), "cuda.core's bytes");
                        memory.memset((byte) 32);
                    }
                    assertEquals(resources, ctx.openResources(), "unmapped before the exporter frees");
                }
                channel.send("done".getBytes(StandardCharsets.UTF_8), List.of());
            }
            JavaProcess.Result r = python.finish(LIMIT);
            assertEquals(0, r.exitCode(), r.describe());
            System.out.println(r.stdout().strip());
        }
    }

    @Test
    void theDocumentedExampleRuns() throws Exception {
        JavaProcess.Result r = JavaProcess.run(LIMIT, PoolSharingExample.class, List.of(), Long.toString(BYTES));
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(r.stdout().contains("java: cuda.core wrote into the JVM's " + BYTES + "-byte pool buffer"),
                r.describe());
    }
}
