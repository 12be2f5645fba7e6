package org.cudaipc4j.simpleipc.host;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.cudaipc4j.simpleipc.backend.BackendException;

/**
 * The host backend's 64-byte IPC handle: it names the shared-memory segment that simulates a device buffer or an
 * interprocess event. It travels through the control block exactly like a CUDA IPC handle.
 *
 * <pre>
 * offset size  field (little-endian)
 *   0     4    magic, ASCII "C4JH" (a new layout gets a new magic)
 *   4     1    kind: 1 = memory (a segment), 2 = event, 3 = memory passed as a file descriptor beside the handle
 *   5     1    length n of the segment name (1..44)
 *   6     2    device ordinal (unsigned)
 *   8     4    exporter pid (the process that exported it; it may not open a memory handle)
 *  12     8    size in bytes: the buffer's size, or the event segment's size
 *  20    44    segment name, ASCII, n bytes then zeros
 * </pre>
 * Described once as a {@link MemoryLayout} (packed: the size is not aligned); offsets and var handles are taken from
 * it.
 *
 * @param kind        memory or event
 * @param device      the simulated device ordinal the segment belongs to
 * @param exporterPid the pid of the exporting process
 * @param size        the segment's size in bytes
 * @param segmentName the shared-memory segment's name ({@code cudaipc4j-...})
 */
public record HostHandle(Kind kind, int device, long exporterPid, long size, String segmentName) {

    /** Size of every handle, as for CUDA IPC handles. */
    public static final int BYTES = 64;
    /** Longest segment name a handle can carry. */
    public static final int MAX_NAME_BYTES = 44;

    /** The handle's bytes, packed and little-endian whatever the platform. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN).withName("magic"),
            JAVA_BYTE.withName("kind"),
            JAVA_BYTE.withName("nameLength"),
            JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN).withName("device"),
            JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN).withName("exporterPid"),
            JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN).withName("size"),
            MemoryLayout.sequenceLayout(MAX_NAME_BYTES, JAVA_BYTE).withName("segmentName")).withName("HostHandle");
    private static final VarHandle MAGIC_FIELD = field("magic");
    private static final VarHandle KIND = field("kind");
    private static final VarHandle NAME_LENGTH = field("nameLength");
    private static final VarHandle DEVICE = field("device");
    private static final VarHandle EXPORTER_PID = field("exporterPid");
    private static final VarHandle SIZE = field("size");
    /** Where the segment name starts. */
    static final int NAME_OFFSET = (int) LAYOUT.byteOffset(groupElement("segmentName"));
    static final int MAGIC = 'C' | '4' << 8 | 'J' << 16 | 'H' << 24; // "C4JH" in little-endian order
    private static final String NAME_PREFIX = "cudaipc4j-";

    /** What a handle names. */
    public enum Kind {
        MEMORY(1), EVENT(2), MEMORY_FD(3);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    public HostHandle {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(segmentName, "segmentName");
        String problem = problem(kind, device, exporterPid, size, segmentName);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    private static VarHandle field(String name) {
        return LAYOUT.varHandle(groupElement(name));
    }

    /** The 64 handle bytes. */
    public byte[] encode() {
        byte[] bytes = new byte[BYTES];
        MemorySegment b = MemorySegment.ofArray(bytes);
        byte[] name = segmentName.getBytes(StandardCharsets.US_ASCII);
        MAGIC_FIELD.set(b, 0L, MAGIC);
        KIND.set(b, 0L, (byte) kind.code);
        NAME_LENGTH.set(b, 0L, (byte) name.length);
        DEVICE.set(b, 0L, (short) device);
        EXPORTER_PID.set(b, 0L, (int) exporterPid);
        SIZE.set(b, 0L, size);
        System.arraycopy(name, 0, bytes, NAME_OFFSET, name.length);
        return bytes;
    }

    /**
     * Reads a handle, rejecting anything this backend did not write.
     *
     * @throws BackendException naming what is wrong with the handle
     */
    public static HostHandle decode(byte[] handle) {
        if (handle == null || handle.length != BYTES) {
            throw bad(handle == null ? "it is null" : "it is " + handle.length + " bytes, not " + BYTES);
        }
        MemorySegment b = MemorySegment.ofArray(handle);
        int magic = (int) MAGIC_FIELD.get(b, 0L);
        if (magic != MAGIC) {
            throw bad(String.format("bad magic 0x%08x (not a host backend handle)", magic));
        }
        byte kindCode = (byte) KIND.get(b, 0L);
        Kind kind = Kind.of(kindCode);
        if (kind == null) {
            throw bad("unknown kind " + kindCode);
        }
        int nameLength = Byte.toUnsignedInt((byte) NAME_LENGTH.get(b, 0L));
        if (nameLength < 1 || nameLength > MAX_NAME_BYTES) {
            throw bad("segment name length " + nameLength + " is not in 1.." + MAX_NAME_BYTES);
        }
        for (int i = NAME_OFFSET + nameLength; i < BYTES; i++) {
            if (handle[i] != 0) {
                throw bad("non-zero byte after the segment name at offset " + i);
            }
        }
        int device = Short.toUnsignedInt((short) DEVICE.get(b, 0L));
        long pid = Integer.toUnsignedLong((int) EXPORTER_PID.get(b, 0L));
        long size = (long) SIZE.get(b, 0L);
        String name = new String(handle, NAME_OFFSET, nameLength, StandardCharsets.ISO_8859_1);
        String problem = problem(kind, device, pid, size, name);
        if (problem != null) {
            throw bad(problem);
        }
        return new HostHandle(kind, device, pid, size, name);
    }

    /** Decodes and checks the kind. */
    static HostHandle decode(byte[] handle, Kind expected) {
        HostHandle h = decode(handle);
        if (h.kind != expected) {
            throw bad("it is " + article(h.kind) + " handle where " + article(expected) + " handle was expected");
        }
        return h;
    }

    private static String article(Kind k) {
        return k == Kind.EVENT ? "an event" : "a memory";
    }

    private static String problem(Kind kind, int device, long pid, long size, String name) {
        if (device < 0 || device > 0xFFFF) {
            return "device ordinal " + device + " is out of range";
        }
        if (pid < 1 || pid > 0xFFFF_FFFFL) {
            return "exporter pid " + pid + " is out of range";
        }
        if (size < 1) {
            return "size " + size + " is not positive";
        }
        if (kind == Kind.EVENT && size != EventSegment.SIZE) {
            return "event segment size " + size + " is not " + EventSegment.SIZE;
        }
        if (name.isEmpty() || name.length() > MAX_NAME_BYTES) {
            return "segment name length " + name.length() + " is not in 1.." + MAX_NAME_BYTES;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 0x7F || c == '/') {
                return "segment name has a bad character at index " + i;
            }
        }
        if (!name.startsWith(NAME_PREFIX) || name.contains("..")) {
            return "segment name '" + name + "' is not a " + NAME_PREFIX + "* name";
        }
        return null;
    }

    private static BackendException bad(String why) {
        return new BackendException("invalid host IPC handle: " + why);
    }
}
