package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.Test;

/**
 * Several VMM allocations, exported as file descriptors, mapped side by side into one range: the bytes of chunk
 * {@code i} appear at {@code i * chunkBytes}, writes through the mapping reach the allocations, and closing releases
 * everything (the memory is freed once the exporter releases its side too).
 */
@GpuTest
class ChunkedVmmMappingGpuTest {
    private static final Set<ShareableHandleType> FD = Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR);

    @Test
    void chunksAppearInOrderInOneRangeAndAreReleasedOnClose() {
        try (Context keeper = Context.retainPrimary(Device.get(0))) {
            long chunk = VmmAllocation.granularity(keeper.device(), FD) * 2;
            long freeBefore = keeper.memInfo().free();
            try (Context ctx = Context.retainPrimary(Device.get(0))) {
                List<VmmAllocation> chunks = new ArrayList<>();
                int[] fds = new int[3];
                for (int i = 0; i < fds.length; i++) {
                    VmmAllocation a = VmmAllocation.create(ctx, chunk, FD);
                    a.memset((byte) (0x10 + i));
                    chunks.add(a);
                    fds[i] = a.exportFileDescriptor();
                }
                ChunkedVmmMapping m;
                try {
                    m = ChunkedVmmMapping.importFileDescriptors(ctx, fds, chunk);
                } finally {
                    for (int fd : fds) {
                        Libc.close(fd);
                    }
                }
                assertEquals(3 * chunk, m.bytes());
                assertEquals(3, m.chunks());
                assertEquals(chunk, m.chunkBytes());
                for (int i = 0; i < 3; i++) {
                    byte[] expected = new byte[64];
                    Arrays.fill(expected, (byte) (0x10 + i));
                    assertArrayEquals(expected, m.read(i * chunk, 64), "start of chunk " + i);
                    assertArrayEquals(expected, m.read((i + 1) * chunk - 64, 64), "end of chunk " + i);
                }
                // One copy across the seam of chunks 0 and 1 lands in both allocations.
                m.memset(chunk - 8, 16, (byte) 0x7f);
                assertArrayEquals(new byte[] {0x7f, 0x7f}, chunks.get(0).read(chunk - 2, 2));
                assertArrayEquals(new byte[] {0x7f, 0x7f}, chunks.get(1).read(0, 2));
                m.close();
                assertTrue(m.isClosed());
                assertThrows(IllegalStateException.class, m::address);
                for (VmmAllocation a : chunks) {
                    a.close();
                }
            }
            assertTrue(keeper.memInfo().free() >= freeBefore - (8L << 20), "every chunk freed");
        }
    }

    @Test
    void badArgumentsAndAForeignDescriptorAreRefusedAndLeaveNothingBehind() throws IOException {
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            long chunk = VmmAllocation.granularity(ctx.device(), FD);
            assertThrows(IllegalArgumentException.class,
                    () -> ChunkedVmmMapping.importFileDescriptors(ctx, new int[0], chunk));
            assertThrows(IllegalArgumentException.class,
                    () -> ChunkedVmmMapping.importFileDescriptors(ctx, new int[] {-1}, chunk));
            IllegalArgumentException odd = assertThrows(IllegalArgumentException.class,
                    () -> ChunkedVmmMapping.importFileDescriptors(ctx, new int[] {0}, chunk + 1));
            assertTrue(odd.getMessage().contains("multiple of"), odd.getMessage());
            int jar = openJar();
            try (VmmAllocation a = VmmAllocation.create(ctx, chunk, FD)) {
                int fd = a.exportFileDescriptor();
                try {
                    // the second descriptor (a jar on the class path) is no allocation: the first import is
                    // released again
                    CudaException e = assertThrows(CudaException.class,
                            () -> ChunkedVmmMapping.importFileDescriptors(ctx, new int[] {fd, jar}, chunk));
                    assertTrue(e.getMessage().contains("chunk 1 of 2"), e.getMessage());
                } finally {
                    Libc.close(fd);
                }
            }
            assertEquals(0, ctx.openResources());
        }
    }

    /** A descriptor this JVM holds open on a jar of its class path: a regular file, no allocation. */
    private static int openJar() throws IOException {
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(p).toString().endsWith(".jar")) {
                        return Integer.parseInt(p.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // the descriptor of the listing itself, closed meanwhile
                }
            }
        }
        throw new AssertionError("this JVM holds no jar open");
    }
}
