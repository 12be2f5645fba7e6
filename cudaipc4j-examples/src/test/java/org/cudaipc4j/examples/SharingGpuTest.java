package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.IpcCapabilities;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.cuda.ipc.VmmMapping;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Memory of every kind shared with another JVM through one API: exported here, its descriptor and file descriptors
 * sent over a private socket, mapped there (once, then from the importer's cache), written there and read back here.
 * The importer leaves no descriptor open.
 */
@GpuTest
class SharingGpuTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final long BYTES = (64L << 20) + 3;
    private static Context ctx;
    private static Stream stream;

    @BeforeAll
    static void open() {
        ctx = Context.retainPrimary(Device.get(0));
        stream = Stream.create(ctx, true);
    }

    @AfterAll
    static void close() {
        Closeables.closeAll(ctx);
    }

    private static DeviceMemory allocate(IpcPath path, long bytes) {
        return switch (path) {
            case LEGACY -> DeviceBuffer.allocate(ctx, bytes);
            case VMM_FD -> VmmAllocation.create(ctx, bytes, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
            case POOL_FD -> MemoryPool.create(ctx, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0)
                    .allocate(bytes, stream);
            default -> throw new IllegalArgumentException(path.toString());
        };
    }

    @ParameterizedTest
    @EnumSource(value = IpcPath.class, names = {"LEGACY", "VMM_FD", "POOL_FD"})
    void anotherJvmMapsWritesAndReleasesIt(IpcPath path) throws Exception {
        String imported = share(path, List.of());
        assertTrue(imported.startsWith("IMPORT "), imported);
        System.out.println(path.displayName() + " " + imported);
    }

    /**
     * Two containers that share a socket volume: the importer in its own PID namespace ({@code unshare --pid}). File
     * descriptors cross it, and so do legacy handles with the R580 driver (CUDA 13.0): every path maps and writes.
     */
    @ParameterizedTest
    @EnumSource(value = IpcPath.class, names = {"LEGACY", "VMM_FD", "POOL_FD"})
    void anImporterInAnotherPidNamespace(IpcPath path) throws Exception {
        // Root makes the PID namespace itself; anyone else first makes a user namespace in which it is root.
        boolean root = ((Integer) java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid"))
                == 0;
        List<String> unshare = root ? List.of("unshare", "--pid", "--fork", "--kill-child", "--mount-proc")
                : List.of("unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc");
        JavaProcess.Result probe = JavaProcess.runCommand(LIMIT, java.util.stream.Stream.concat(unshare.stream(),
                java.util.stream.Stream.of("true")).toList());
        // Where a GPU is required, a refusal fails the test instead.
        org.junit.jupiter.api.Assumptions.assumeTrue(probe.exitCode() == 0,
                "unshare --pid is refused here (needs root, or user namespaces for others): " + probe.describe());
        String imported = share(path, unshare);
        assertTrue(imported.startsWith("IMPORT "), imported);
        System.out.println(path.displayName() + " from another PID namespace: " + imported);
    }

    /**
     * Exports memory of {@code path} filled with 49, lets a {@link SharingPeer} (started after {@code prefix})
     * map it and write 98, checks the bytes and that the peer closed what it received; returns the peer's import
     * line ({@code IMPORT ...} or {@code ERROR ...}, in which case the memory must be untouched).
     */
    private static String share(IpcPath path, List<String> prefix) throws Exception {
        DeviceMemory memory = allocate(path, BYTES);
        memory.memset((byte) 49);
        try (FdServer server = FdServer.open(); SharedMemoryExport export = SharedMemoryExport.of(memory)) {
            assertEquals(path, export.descriptor().path());
            assertEquals(memory.bytes(), export.descriptor().bytes());
            List<String> command = new java.util.ArrayList<>(prefix);
            command.addAll(JavaProcess.command(SharingPeer.class, List.of(), server.socket().toString(), "49", "98"));
            JavaProcess.Interactive peer = JavaProcess.start(command);
            String imported;
            try (FdChannel channel = server.accept(LIMIT)) {
                channel.send(export.descriptor().toBytes(), Arrays.stream(export.fileDescriptors()).boxed().toList());
                imported = peer.readLine(LIMIT);
                // The JVM itself may print a warning on stdout first; show it, then go on to the peer's line.
                while (!imported.startsWith("IMPORT ") && !imported.startsWith("ERROR ")) {
                    System.out.println("the peer printed: " + imported);
                    imported = peer.readLine(LIMIT);
                }
                if (imported.startsWith("IMPORT ")) {
                    try (FdMessage done = channel.receive(LIMIT)) {
                        assertEquals("done", new String(done.payload(), StandardCharsets.UTF_8));
                    }
                }
                assertEquals("FDS closed", peer.readLine(LIMIT), "the importer closed every descriptor it received");
                JavaProcess.Result r = peer.finish(LIMIT);
                assertEquals(imported.startsWith("IMPORT ") ? 0 : 1, r.exitCode(), r.describe());
            }
            assertNull(Bytes.firstDifference(memory, (byte) (imported.startsWith("IMPORT ") ? 98 : 49)),
                    "the importer's bytes");
            return imported;
        } finally {
            if (memory instanceof org.cudaipc4j.cuda.ipc.PoolBuffer buffer) {
                Closeables.closeAll(buffer.pool());
            } else {
                Closeables.closeAll((AutoCloseable) memory);
            }
        }
    }

    @Test
    void sizesAreRoundedToTheGranularityAndSaySo() {
        long granularity = VmmAllocation.granularity(ctx.device(), Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
        assertTrue(granularity > 0 && Long.bitCount(granularity) == 1, "granularity " + granularity);
        try (VmmAllocation a = VmmAllocation.create(ctx, granularity + 1,
                Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR))) {
            assertEquals(granularity + 1, a.requestedBytes());
            assertEquals(2 * granularity, a.bytes());
            a.memset((byte) 5);
            assertNull(Bytes.firstDifference(a, (byte) 5));
        }
    }

    /** Malformed descriptor bytes and foreign groups are checked without a GPU, in SharedMemoryDescriptorTest. */
    @Test
    void aRealExportRoundTripsAndAClosedDescriptorGetsAOneLineError() {
        try (DeviceBuffer buffer = DeviceBuffer.allocate(ctx, 4096); SharedMemoryExport export = SharedMemoryExport.of(buffer)) {
            assertEquals(export.descriptor(), SharedMemoryDescriptor.fromBytes(export.descriptor().toBytes()));
        }
        long granularity = VmmAllocation.granularity(ctx.device(), Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
        CudaException closedFd = assertThrows(CudaException.class,
                () -> VmmMapping.importFileDescriptor(ctx, 999, granularity));
        assertTrue(closedFd.getMessage().startsWith("cuMemImportFromShareableHandle failed: CUDA_ERROR_"),
                closedFd.getMessage());
        assertEquals(1, closedFd.getMessage().lines().count());
    }

    @Test
    void theProbeSaysWhichPathsWork() {
        IpcCapabilities caps = IpcCapabilities.probe(ctx.device(), true);
        assertTrue(caps.supports(IpcPath.LEGACY), caps.toString());
        assertTrue(caps.supports(IpcPath.VMM_FD), caps.toString());
        assertTrue(caps.supports(IpcPath.POOL_FD), caps.toString());
        for (IpcPath p : IpcPath.values()) {
            assertTrue(caps.supports(p) || !caps.whyNot(p).orElseThrow().isBlank(), p + " without a reason");
        }
        System.out.println("capabilities: " + caps.unsupported());
    }
}
