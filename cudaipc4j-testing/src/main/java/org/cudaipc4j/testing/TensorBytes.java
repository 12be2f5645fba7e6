package org.cudaipc4j.testing;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A tensor's elements as torch's {@code t.contiguous().cpu().numpy().tobytes()} gives them, walked one element at a
 * time in row-major order over a copy of its storage: the plain reference that tests compare readers and digests
 * with, whatever the view's strides, offset or stride-0 dimensions.
 */
public final class TensorBytes {
    private TensorBytes() {}

    /**
     * {@return the sha256 (64 lower-case hex digits) of the elements, in row-major order}
     *
     * @param storage the storage's bytes from element 0 on, reaching at least the last element
     * @param elementSize the bytes of one element
     * @param offset the first element's index in the storage, in elements
     * @param shape the tensor's shape
     * @param strides its strides, in elements
     */
    public static String sha256(byte[] storage, int elementSize, long offset, long[] shape, long[] strides) {
        if (shape.length != strides.length) {
            throw new IllegalArgumentException(shape.length + " dimensions but " + strides.length + " strides");
        }
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
        long count = 1;
        for (long n : shape) {
            count *= n;
        }
        long[] index = new long[shape.length];
        for (long n = 0; n < count; n++) {
            long at = offset;
            for (int d = 0; d < shape.length; d++) {
                at += index[d] * strides[d];
            }
            md.update(storage, Math.toIntExact(at * elementSize), elementSize);
            for (int d = shape.length - 1; d >= 0; d--) {
                if (++index[d] < shape[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
