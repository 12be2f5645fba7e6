package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The reference walk against digests computed with Python's hashlib, and the free ports. */
class TensorBytesTest {
    private static byte[] floats(int n) {
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat(i);
        }
        return b.array();
    }

    @Test
    void matchesPythonsHashlibForContiguousStridedBroadcastAndEmptyTensors() {
        // hashlib.sha256(struct.pack('<4f', 0, 1, 2, 3)).hexdigest(): torch.arange(4.)
        assertEquals("4c9c4f354e74153db012329d71c8562ec23e498148174b2c49de58f45d47cdbe",
                TensorBytes.sha256(floats(4), 4, 0, new long[] {4}, new long[] {1}));
        // torch.arange(12.).view(3, 4)[:, 1:3]: elements 1, 2, 5, 6, 9, 10
        assertEquals("80331067a29644c11656ea0393d660e8efac09aa63fc67807bb9dd325adddeba",
                TensorBytes.sha256(floats(12), 4, 1, new long[] {3, 2}, new long[] {4, 1}));
        // torch.tensor([7, 8], dtype=torch.int16).expand(3, 2): stride 0
        assertEquals("dd16f7928ff34a8c27c6dca433b07df771124c5565251702e262e5d0e691a3f6",
                TensorBytes.sha256(new byte[] {7, 0, 8, 0}, 2, 0, new long[] {3, 2}, new long[] {0, 1}));
        // An empty tensor hashes no bytes.
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                TensorBytes.sha256(new byte[0], 4, 0, new long[] {0, 5}, new long[] {5, 1}));
    }

    @Test
    void freePortsCanBeBound() throws Exception {
        int p = Ports.freeLoopbackPortPair();
        try (ServerSocket a = new ServerSocket(p, 1, InetAddress.getLoopbackAddress());
             ServerSocket b = new ServerSocket(p + 1, 1, InetAddress.getLoopbackAddress())) {
            assertTrue(a.isBound() && b.isBound());
        }
        int q = Ports.freeLoopbackPort();
        assertNotEquals(0, q);
        try (ServerSocket s = new ServerSocket(q, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(q, s.getLocalPort());
        }
    }
}
