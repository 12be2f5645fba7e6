package org.cudaipc4j.cli.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.testing.TensorBytes;
import org.junit.jupiter.api.Test;

/**
 * The sha256 of a tensor's elements as torch's {@code t.contiguous().cpu().numpy().tobytes()} gives them: checked
 * against digests computed with Python's hashlib and against a plain element-by-element walk.
 */
class TensorDigestTest {
    /** A storage in host memory, read as the device's copyTo would. */
    private static TensorDigest.Source host(byte[] storage) {
        return (offset, dst) -> MemorySegment.copy(MemorySegment.ofArray(storage), offset, dst, 0, dst.byteSize());
    }

    private static byte[] floats(int n) {
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat(i);
        }
        return b.array();
    }

    @Test
    void matchesPythonsHashlibForContiguousStridedAndBroadcastTensors() {
        // hashlib.sha256(struct.pack('<4f', 0, 1, 2, 3)).hexdigest(): torch.arange(4.)
        assertEquals("4c9c4f354e74153db012329d71c8562ec23e498148174b2c49de58f45d47cdbe",
                TensorDigest.sha256(TensorLayout.contiguous(DType.FLOAT32, 4), host(floats(4))));
        // torch.arange(12.).view(3, 4)[:, 1:3]: elements 1, 2, 5, 6, 9, 10
        assertEquals("80331067a29644c11656ea0393d660e8efac09aa63fc67807bb9dd325adddeba",
                TensorDigest.sha256(TensorLayout.of(DType.FLOAT32, new long[] {3, 2}, new long[] {4, 1}, 1),
                        host(floats(12))));
        // torch.tensor([7, 8], dtype=torch.int16).expand(3, 2): stride 0
        byte[] shorts = {7, 0, 8, 0};
        assertEquals("dd16f7928ff34a8c27c6dca433b07df771124c5565251702e262e5d0e691a3f6",
                TensorDigest.sha256(TensorLayout.of(DType.INT16, new long[] {3, 2}, new long[] {0, 1}, 0),
                        host(shorts)));
        // An empty tensor hashes no bytes.
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                TensorDigest.sha256(TensorLayout.contiguous(DType.FLOAT32, 0, 5), host(new byte[0])));
    }

    @Test
    void aTransposedViewAndAContiguousTensorLongerThanOneChunkMatchAPlainWalk() throws Exception {
        byte[] storage = new byte[TensorDigest.CHUNK + 3 * 4096 + 7];
        new Random(5).nextBytes(storage);
        TensorLayout transposed = TensorLayout.of(DType.BFLOAT16, new long[] {64, 32}, new long[] {1, 64}, 3);
        assertFalse(TensorDigest.contiguous(transposed));
        assertEquals(walk(transposed, storage), TensorDigest.sha256(transposed, host(storage)));
        TensorLayout big = TensorLayout.of(DType.UINT8, new long[] {storage.length - 7}, new long[] {1}, 7);
        assertTrue(TensorDigest.contiguous(big));
        assertEquals(walk(big, storage), TensorDigest.sha256(big, host(storage)));
        TensorLayout sizeOne = TensorLayout.of(DType.INT32, new long[] {1, 8}, new long[] {99, 1}, 2);
        assertTrue(TensorDigest.contiguous(sizeOne), "a dimension of size 1 may have any stride");
        assertEquals(walk(sizeOne, storage), TensorDigest.sha256(sizeOne, host(storage)));
    }

    /** Element by element in row-major order, as the GPU tests check tensors. */
    private static String walk(TensorLayout l, byte[] storage) {
        return TensorBytes.sha256(storage, l.dtype().elementSize(), l.offset(), l.shape(), l.strides());
    }
}
