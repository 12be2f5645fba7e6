package org.cudaipc4j.interop.torch;

import org.cudaipc4j.interop.TorchHandle;
import java.io.FileInputStream;
import java.io.IOException;
import java.util.Objects;

/**
 * The reader side's key for "this storage is already open here", which decides that a further share of it is
 * released at once (torch's {@code rebuild_cuda_tensor} does the same on a hit in its {@code shared_cache}, keyed
 * by {@code (storage_handle, storage_offset_bytes)}).
 *
 * <p>{@code 'c'}: the 64-byte IPC handle of the caching allocator's segment, the storage's offset and size. While a
 * reader holds a slot the producer keeps the block in its limbo, so the handle cannot name other memory meanwhile.
 *
 * <p>{@code 'e'}: not the handle's bytes. They list only the chunks under the shared block, so two storages of one
 * segment differ, and torch has left padding bytes uninitialised (before pytorch #161885 and again after #179618).
 * The key is the parsed handle (producer pid, chunk size, the chunks' fd numbers or fabric handles), the storage's
 * offset and size, and the producer's start time ({@code /proc/<pid>/stat} field 22). File descriptor numbers are
 * stable only while the producer's chunks stay mapped, which the held slot guarantees; a pid is stable only while
 * its process lives, so the start time tells a new process with a reused pid (and the same fd numbers) from the one
 * whose memory is open here.
 *
 * @param mapping       {@link TorchHandle#mappingKey()}
 * @param producerStart the producer's start time in clock ticks since boot, 0 for {@code 'c'}, -1 when the producer
 *                      has no process here
 * @param offset        the storage's offset in the mapped memory
 * @param bytes         the storage's size
 */
public record TorchStorageKey(String mapping, long producerStart, long offset, long bytes) {

    /**
     * A key.
     *
     * @throws NullPointerException without a mapping
     */
    public TorchStorageKey {
        Objects.requireNonNull(mapping, "mapping");
    }

    // equals and hashCode written out: a record's own run through method handles, slow in a fresh JVM, and a state
    // dict's every share looks its key up on its open.
    @Override
    public boolean equals(Object o) {
        return o instanceof TorchStorageKey k && k.producerStart == producerStart && k.offset == offset
                && k.bytes == bytes && k.mapping.equals(mapping);
    }

    @Override
    public int hashCode() {
        return ((mapping.hashCode() * 31 + Long.hashCode(producerStart)) * 31 + Long.hashCode(offset)) * 31
                + Long.hashCode(bytes);
    }

    /** {@return the key in words: the mapping's characters beyond printable ASCII as {@code \xNN}} */
    @Override
    public String toString() {
        StringBuilder m = new StringBuilder(mapping.length());
        for (int i = 0; i < mapping.length(); i++) {
            char c = mapping.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                m.append(c);
            } else {
                m.append(String.format("\\x%02x", (int) c));
            }
        }
        return "TorchStorageKey[mapping=" + m + ", producerStart=" + producerStart + ", offset=" + offset + ", bytes="
                + bytes + "]";
    }

    /**
     * {@return the key of {@code share}'s storage; reads {@code /proc} for an {@code 'e'} handle}
     *
     * @param share the share
     */
    public static TorchStorageKey of(TorchShare share) {
        if (share.isEmpty()) {
            throw new IllegalArgumentException("an empty storage has no key: it is never opened");
        }
        TorchHandle h = share.handle();
        long start = h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT ? processStartTime(h.producerPid()) : 0;
        return of(share, start);
    }

    /** The key of {@code share}'s storage whose producer started at {@code producerStart} (0 for {@code 'c'}). */
    static TorchStorageKey of(TorchShare share, long producerStart) {
        return new TorchStorageKey(share.handle().mappingKey(), producerStart, share.storageOffsetBytes(),
                share.storageBytes());
    }

    /**
     * {@return the start time of process {@code pid} in clock ticks since boot, or -1 when there is no such process}
     *
     * @param pid the process
     */
    public static long processStartTime(long pid) {
        // A FileInputStream, not Files.readString: on an 'e' share's first open in a fresh JVM the stream's short
        // path runs in a fraction of the time the NIO channel's takes.
        byte[] stat;
        try (FileInputStream in = new FileInputStream("/proc/" + pid + "/stat")) {
            stat = in.readAllBytes();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return startTime(stat);
    }

    /**
     * {@return field 22 (starttime) of a {@code /proc/<pid>/stat} line, or -1 when it has none}: the fields after the
     * command name, which is in parentheses and may hold spaces and parentheses itself, are separated by one space.
     */
    static long startTime(byte[] stat) {
        int i = stat.length - 1;
        while (i >= 0 && stat[i] != ')') {
            i--;
        }
        if (i < 0) {
            return -1;
        }
        int field = 3;
        long value = -1;
        for (i += 2; i < stat.length && field <= 22; i++) {
            byte c = stat[i];
            if (c == ' ') {
                field++;
            } else if (field == 22) {
                if (c < '0' || c > '9') {
                    return -1;
                }
                value = (value < 0 ? 0 : value * 10) + (c - '0');
            }
        }
        return field >= 22 ? value : -1;
    }
}
