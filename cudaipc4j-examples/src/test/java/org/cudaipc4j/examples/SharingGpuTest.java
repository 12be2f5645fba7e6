package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
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
import org.cudaipc4j.cuda.IpcCapabilities;
import org.cudaipc4j.cuda.IpcPath;
import org.cudaipc4j.cuda.MemoryPool;
import org.cudaipc4j.cuda.ShareableHandleType;
import org.cudaipc4j.cuda.ShareableMemory;
import org.cudaipc4j.cuda.SharedMemoryDescriptor;
import org.cudaipc4j.cuda.SharedMemoryExport;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.VmmAllocation;
import org.cudaipc4j.cuda.VmmMapping;
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

    private static ShareableMemory allocate(IpcPath path, long bytes) {
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
        ShareableMemory memory = allocate(path, BYTES);
        memory.memset((byte) 0x31);
        try (FdServer server = FdServer.open(); SharedMemoryExport export = memory.export()) {
            assertEquals(path, export.descriptor().path());
            assertEquals(memory.bytes(), export.descriptor().bytes());
            JavaProcess.Interactive peer = JavaProcess.start(JavaProcess.command(SharingPeer.class, List.of(),
                    server.socket().toString(), "49", "98"));
            try (FdChannel channel = server.accept(LIMIT)) {
                channel.send(export.descriptor().toBytes(), Arrays.stream(export.fileDescriptors()).boxed().toList());
                String imported = peer.readLine(LIMIT);
                assertTrue(imported.startsWith("IMPORT "), imported);
                try (FdMessage done = channel.receive(LIMIT)) {
                    assertEquals("done", new String(done.payload(), StandardCharsets.UTF_8));
                }
                String[] fds = peer.readLine(LIMIT).split(" ");
                assertEquals(fds[1], fds[2], "the importer closed every descriptor it received");
                JavaProcess.Result r = peer.finish(LIMIT);
                assertEquals(0, r.exitCode(), r.describe());
                System.out.println(path.displayName() + " " + imported);
            }
            assertNull(Bytes.firstDifference(memory, (byte) 98), "the importer's bytes");
        } finally {
            if (memory instanceof org.cudaipc4j.cuda.PoolBuffer buffer) {
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

    @Test
    void badDescriptorsAndDescriptorsGetOneLineErrors() {
        try (DeviceBuffer buffer = DeviceBuffer.allocate(ctx, 4096); SharedMemoryExport export = buffer.export()) {
            byte[] bytes = export.descriptor().toBytes();
            IllegalArgumentException truncated = assertThrows(IllegalArgumentException.class,
                    () -> SharedMemoryDescriptor.fromBytes(Arrays.copyOf(bytes, 40)));
            assertEquals("truncated memory descriptor: 40 bytes, a descriptor has at least 80", truncated.getMessage());
            SharedMemoryDescriptor d = SharedMemoryDescriptor.fromBytes(bytes);
            assertEquals(export.descriptor(), d);
            IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                    () -> d.inGroup(7).requireGroup(8));
            assertEquals("the memory descriptor belongs to group 7, not to this group (8)", foreign.getMessage());
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
