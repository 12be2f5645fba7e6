package org.cudaipc4j.nccl;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * {@code ncclUniqueId}: the 128 bytes rank 0 makes with {@link Nccl#newUniqueId()} and hands to every rank (through
 * a rendezvous) so they can form one communicator. The process that made it hosts NCCL's bootstrap and must stay
 * alive until every rank has joined.
 */
public final class UniqueId {
    /** {@code NCCL_UNIQUE_ID_BYTES}. */
    public static final int BYTES = 128;

    private final byte[] bytes;

    private UniqueId(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * {@return the id with these 128 bytes}
     *
     * @param bytes the 128 bytes
     */
    public static UniqueId of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("an NCCL unique id is " + BYTES + " bytes, got " + bytes.length);
        }
        return new UniqueId(bytes.clone());
    }

    /**
     * {@return the id written as 256 hex digits}
     *
     * @param hex 256 hex digits
     */
    public static UniqueId ofHex(String hex) {
        if (hex.length() != 2 * BYTES) {
            throw new IllegalArgumentException("an NCCL unique id is " + 2 * BYTES + " hex digits, got "
                    + hex.length());
        }
        return new UniqueId(HexFormat.of().parseHex(hex));
    }

    /** {@return a copy of the 128 bytes} */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** {@return the 128 bytes as 256 hex digits} */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UniqueId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Not the bytes: an id lets anyone who has it join the communicator. */
    @Override
    public String toString() {
        return "ncclUniqueId";
    }
}
