package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Every handle format torch has written, built here from the layouts cited in {@link TorchHandle}. */
class TorchHandleTest {
    static byte[] ipc(int seed) {
        byte[] h = new byte[64];
        for (int i = 0; i < 64; i++) {
            h[i] = (byte) (seed + i);
        }
        return h;
    }

    /** shareIpcHandle, cudaMalloc branch: version, 'c', the 64-byte cudaIpcMemHandle_t. */
    static byte[] c(int version, byte[] ipc) {
        return ByteBuffer.allocate(66).put((byte) version).put((byte) 'c').put(ipc).array();
    }

    /** ExpandableSegment::share: version, 'e', ShareHeader (24 or 32 bytes), chunks. */
    static byte[] e(int version, int pid, int padding, long segmentSize, long count, int handleType, byte[] chunks) {
        int header = version >= 3 ? 32 : 24;
        ByteBuffer b = ByteBuffer.allocate(2 + header + chunks.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) version).put((byte) 'e').putInt(pid).putInt(padding).putLong(segmentSize).putLong(count);
        if (version >= 3) {
            b.putInt(handleType).putInt(padding);
        }
        return b.put(chunks).array();
    }

    static byte[] fds(int... fds) {
        ByteBuffer b = ByteBuffer.allocate(4 * fds.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int fd : fds) {
            b.putInt(fd);
        }
        return b.array();
    }

    @Test
    void rawSixtyFourBytesIsTheHandleOfTorchUpToTwoFour() {
        TorchHandle h = TorchHandle.parse(ipc(1));
        assertEquals(0, h.version());
        assertEquals(TorchHandle.Type.CUDA_MALLOC, h.type());
        assertArrayEquals(ipc(1), h.ipcMemHandle());
        assertTrue(h.describe().contains("raw"), h.describe());
    }

    @Test
    void typeCParsesInEveryVersionWithTheSamePayloadAndKey() {
        String key = null;
        for (int v = 1; v <= 3; v++) {
            TorchHandle h = TorchHandle.parse(c(v, ipc(7)));
            assertEquals(v, h.version());
            assertEquals(TorchHandle.Type.CUDA_MALLOC, h.type());
            assertArrayEquals(ipc(7), h.ipcMemHandle());
            if (key != null) {
                assertEquals(key, h.mappingKey());
            }
            key = h.mappingKey();
        }
        assertEquals(key, TorchHandle.parse(ipc(7)).mappingKey(), "a raw handle maps the same memory");
    }

    @Test
    void theBytesSeenFromTorchTwoElevenParse() {
        // spec: 30 bytes 02 65 | cb010000 | 00000000 | 0000400100000000 | 0100000000000000 | 2d000000
        byte[] seen = HexFormat.of().parseHex("0265" + "cb010000" + "00000000" + "0000400100000000"
                + "0100000000000000" + "2d000000");
        TorchHandle h = TorchHandle.parse(seen);
        assertEquals(2, h.version());
        assertEquals(459, h.producerPid());
        assertEquals(20L << 20, h.segmentSize());
        assertEquals(TorchHandle.ChunkKind.POSIX_FD, h.chunkKind());
        assertArrayEquals(new int[] {45}, h.fds());
        assertEquals(20L << 20, h.mappedBytes());
    }

    @Test
    void typeEWithFileDescriptorsInVersionsOneAndTwo() {
        for (int v = 1; v <= 2; v++) {
            TorchHandle h = TorchHandle.parse(e(v, 1234, 0, 2 << 20, 2, 0, fds(46, 47)));
            assertEquals(v, h.version());
            assertEquals(1234, h.producerPid());
            assertEquals(2, h.chunkCount());
            assertArrayEquals(new int[] {46, 47}, h.fds());
        }
    }

    @Test
    void typeEWithFabricHandlesFromVersionTwoToldApartByLength() {
        byte[] chunks = new byte[128];
        System.arraycopy(ipc(3), 0, chunks, 0, 64);
        System.arraycopy(ipc(9), 0, chunks, 64, 64);
        TorchHandle h = TorchHandle.parse(e(2, 77, 0, 20 << 20, 2, 0, chunks));
        assertEquals(TorchHandle.ChunkKind.FABRIC, h.chunkKind());
        assertArrayEquals(ipc(9), h.fabricHandles().get(1));
        // 16 fds and one fabric handle have the same length: the header's count decides.
        TorchHandle sixteen = TorchHandle.parse(e(2, 77, 0, 2 << 20, 16, 0, new byte[64]));
        assertEquals(TorchHandle.ChunkKind.POSIX_FD, sixteen.chunkKind());
        TorchHandle one = TorchHandle.parse(e(2, 77, 0, 2 << 20, 1, 0, new byte[64]));
        assertEquals(TorchHandle.ChunkKind.FABRIC, one.chunkKind());
        IllegalArgumentException v1 = assertThrows(IllegalArgumentException.class,
                () -> TorchHandle.parse(e(1, 77, 0, 2 << 20, 1, 0, new byte[64])));
        assertTrue(v1.getMessage().contains("version 1 has no fabric"), v1.getMessage());
    }

    @Test
    void versionThreeSaysItsHandleType() {
        TorchHandle fd = TorchHandle.parse(e(3, 5, 0, 2 << 20, 1, 1, fds(12)));
        assertEquals(TorchHandle.ChunkKind.POSIX_FD, fd.chunkKind());
        TorchHandle fabric = TorchHandle.parse(e(3, 5, 0, 2 << 20, 1, 2, ipc(0)));
        assertEquals(TorchHandle.ChunkKind.FABRIC, fabric.chunkKind());
        TorchHandle unspecified = TorchHandle.parse(e(3, 5, 0, 2 << 20, 1, 0, fds(12)));
        assertEquals(TorchHandle.ChunkKind.POSIX_FD, unspecified.chunkKind());
        assertRefused(e(3, 5, 0, 2 << 20, 1, 7, fds(12)), "unknown handle_type 7");
        assertRefused(e(3, 5, 0, 2 << 20, 1, 2, fds(12)), "needs 64 bytes of chunks, got 4");
    }

    @Test
    void paddingBytesAreNoPartOfTheKey() {
        TorchHandle zero = TorchHandle.parse(e(2, 9, 0, 2 << 20, 1, 0, fds(3)));
        TorchHandle junk = TorchHandle.parse(e(2, 9, 0xdeadbeef, 2 << 20, 1, 0, fds(3)));
        assertNotEquals(zero, junk);
        assertEquals(zero.mappingKey(), junk.mappingKey());
        TorchHandle v3 = TorchHandle.parse(e(3, 9, 0x5a5a5a5a, 2 << 20, 1, 1, fds(3)));
        assertEquals(zero.mappingKey(), v3.mappingKey());
        assertNotEquals(zero.mappingKey(), TorchHandle.parse(e(2, 9, 0, 2 << 20, 1, 0, fds(4))).mappingKey());
    }

    private static void assertRefused(byte[] bytes, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TorchHandle.parse(bytes));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }
}
