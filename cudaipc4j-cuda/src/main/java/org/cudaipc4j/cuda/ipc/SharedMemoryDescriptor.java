package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.cudaipc4j.cuda.DeviceMemory;

/**
 * What travels so that another process can map shared device memory: the path, the size, the exporter's device (by
 * UUID), who exported it, and the path's handle bytes (a legacy handle, a fabric handle, a pool pointer's export
 * data). File descriptors, where the path needs one, travel beside it ({@link #fileDescriptorCount()}).
 *
 * <p>As bytes ({@link #toBytes()}): a header (little-endian, described once as a
 * {@link MemoryLayout}; every read and write goes through it), then the handle bytes:
 * <pre>
 *   0  magic "CIPCDSC1"     8  path (its {@linkplain IpcPath#wireCode() wire code}, never its position in the enum)
 *   10 file descriptors    12 handle length       14 spare (always 0)     (16 bits each)
 *   16 size    24 device UUID (most, least significant bits)    40 exporter pid    48 exporter token
 *   56 export id    64 pool id    72 group    80 the exporter's PID namespace (the inode of /proc/self/ns/pid, 0 when
 *   unknown)    88 handle bytes (legacy 64; vmm-fd 0; vmm-fabric 64; pool-fd the pointer's 64; pool-fabric the
 *   pointer's 64 then the pool's fabric handle's 64)
 * </pre>
 * {@link #fromBytes} checks each part and says what is wrong with a truncated or foreign descriptor; a descriptor
 * made from another form of the same fields ({@link #builder}) is checked the same way. The group is the exporter's
 * choice (0 for none); an importer can insist on it ({@link #requireGroup}). An immutable value.
 */
public final class SharedMemoryDescriptor {
    /** "CIPCDSC1" read as a little-endian long. */
    private static final long MAGIC = 0x3143_5344_4350_4943L;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The header of the bytes (see the class comment); the handle bytes follow it. Unaligned: read from arrays. */
    static final StructLayout HEADER = MemoryLayout.structLayout(
            LONG.withName("magic"),
            SHORT.withName("path"),
            SHORT.withName("fds"),
            SHORT.withName("handleLength"),
            SHORT.withName("spare"),
            LONG.withName("bytes"),
            LONG.withName("deviceMost"),
            LONG.withName("deviceLeast"),
            LONG.withName("pid"),
            LONG.withName("token"),
            LONG.withName("exportId"),
            LONG.withName("poolId"),
            LONG.withName("group"),
            LONG.withName("pidNamespace")).withName("SharedMemoryDescriptorHeader");
    private static final int HEADER_BYTES = (int) HEADER.byteSize();
    private static final VarHandle MAGIC_FIELD = field("magic");
    private static final VarHandle PATH_FIELD = field("path");
    private static final VarHandle FDS_FIELD = field("fds");
    private static final VarHandle HANDLE_LENGTH_FIELD = field("handleLength");
    private static final VarHandle SPARE_FIELD = field("spare");
    private static final VarHandle BYTES_FIELD = field("bytes");
    private static final VarHandle DEVICE_MOST_FIELD = field("deviceMost");
    private static final VarHandle DEVICE_LEAST_FIELD = field("deviceLeast");
    private static final VarHandle PID_FIELD = field("pid");
    private static final VarHandle TOKEN_FIELD = field("token");
    private static final VarHandle EXPORT_ID_FIELD = field("exportId");
    private static final VarHandle POOL_ID_FIELD = field("poolId");
    private static final VarHandle GROUP_FIELD = field("group");
    private static final VarHandle PID_NAMESPACE_FIELD = field("pidNamespace");
    /** Random per process: with the export id, names an export uniquely even when pids are reused. */
    private static final long PROCESS_TOKEN = new java.util.Random(System.nanoTime() ^ ProcessHandle.current().pid())
            .nextLong() | 1;
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    private static final AtomicLong NEXT_POOL = new AtomicLong(1);
    /** This process's PID namespace: legacy handles work only between processes of one. */
    private static final long PID_NAMESPACE = readPidNamespace();

    private final IpcPath path;
    private final int fileDescriptorCount;
    private final long bytes;
    private final UUID device;
    private final long exporterPid;
    private final long exporterToken;
    private final long exportId;
    private final long poolId;
    private final long group;
    private final long pidNamespace;
    private final byte[] handle;

    SharedMemoryDescriptor(IpcPath path, int fileDescriptorCount, long bytes, UUID device, long exporterPid,
            long exporterToken, long exportId, long poolId, long group, long pidNamespace, byte[] handle) {
        this.path = path;
        this.fileDescriptorCount = fileDescriptorCount;
        this.bytes = bytes;
        this.device = device;
        this.exporterPid = exporterPid;
        this.exporterToken = exporterToken;
        this.exportId = exportId;
        this.poolId = poolId;
        this.group = group;
        this.pidNamespace = pidNamespace;
        this.handle = handle;
    }

    /** A fresh descriptor for memory of this process. */
    static SharedMemoryDescriptor of(IpcPath path, DeviceMemory memory, byte[] handle, long poolId, int fds) {
        return new SharedMemoryDescriptor(path, fds, memory.bytes(), memory.context().device().uuid(),
                ProcessHandle.current().pid(), PROCESS_TOKEN, NEXT_ID.getAndIncrement(), poolId, 0, PID_NAMESPACE,
                handle.clone());
    }

    /** {@return a fresh pool id of this process} */
    static long newPoolId() {
        return NEXT_POOL.getAndIncrement();
    }

    /**
     * The same descriptor in group {@code group}, which an importer can {@linkplain #requireGroup insist on}.
     *
     * @param group the group's id
     * @return the descriptor in that group
     */
    public SharedMemoryDescriptor inGroup(long group) {
        return new SharedMemoryDescriptor(path, fileDescriptorCount, bytes, device, exporterPid, exporterToken,
                exportId, poolId, group, pidNamespace, handle);
    }

    /** {@return the way the memory is shared} */
    public IpcPath path() {
        return path;
    }

    /** {@return how many file descriptors must travel with it} */
    public int fileDescriptorCount() {
        return fileDescriptorCount;
    }

    /** {@return the size an importer maps} */
    public long bytes() {
        return bytes;
    }

    /** {@return the exporter's device} */
    public UUID device() {
        return device;
    }

    /** {@return the exporter's process id} */
    public long exporterPid() {
        return exporterPid;
    }

    /** {@return true when this process exported it} */
    public boolean exportedHere() {
        return exporterToken == PROCESS_TOKEN && exporterPid == ProcessHandle.current().pid();
    }

    /** {@return the group it was exported for, 0 for none} */
    public long group() {
        return group;
    }

    /**
     * {@return true when the exporter is known to run in another PID namespace than this process (another container, or
     * {@code unshare --pid}): legacy handles do not work there, file descriptors do}
     */
    public boolean fromAnotherPidNamespace() {
        return pidNamespace != 0 && PID_NAMESPACE != 0 && pidNamespace != PID_NAMESPACE;
    }

    /** The inode of this process's PID namespace, 0 when /proc does not say. */
    private static long readPidNamespace() {
        try {
            String link = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/pid")).toString();
            // "pid:[4026531836]"
            return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** {@return a copy of the path's handle bytes} */
    public byte[] handle() {
        return handle.clone();
    }

    long exporterToken() {
        return exporterToken;
    }

    /**
     * {@return the export's number, unique among this exporter's exports: a key for tracking who maps it (such as
     * {@code ExportHolders} of {@code cudaipc4j-coord})}
     */
    public long exportId() {
        return exportId;
    }

    /** {@return the exporter's pool of a pool path's buffer (unique per exporter), 0 for the other paths} */
    public long poolId() {
        return poolId;
    }

    /** {@return the inode of the exporter's PID namespace, 0 when unknown} */
    public long pidNamespace() {
        return pidNamespace;
    }

    /**
     * {@return this descriptor, checked to be of group {@code expected}}
     *
     * @param expected the group the importer belongs to
     * @throws IllegalArgumentException unless it was exported for {@code expected}
     */
    public SharedMemoryDescriptor requireGroup(long expected) {
        if (group != expected) {
            throw new IllegalArgumentException("the memory descriptor belongs to group " + Long.toHexString(group)
                    + ", not to this group (" + Long.toHexString(expected) + ")");
        }
        return this;
    }

    /** {@return the descriptor as bytes} */
    public byte[] toBytes() {
        byte[] data = new byte[HEADER_BYTES + handle.length];
        MemorySegment m = MemorySegment.ofArray(data);
        MAGIC_FIELD.set(m, 0L, MAGIC);
        PATH_FIELD.set(m, 0L, (short) path.wireCode());
        FDS_FIELD.set(m, 0L, (short) fileDescriptorCount);
        HANDLE_LENGTH_FIELD.set(m, 0L, (short) handle.length);
        SPARE_FIELD.set(m, 0L, (short) 0);
        BYTES_FIELD.set(m, 0L, bytes);
        DEVICE_MOST_FIELD.set(m, 0L, device.getMostSignificantBits());
        DEVICE_LEAST_FIELD.set(m, 0L, device.getLeastSignificantBits());
        PID_FIELD.set(m, 0L, exporterPid);
        TOKEN_FIELD.set(m, 0L, exporterToken);
        EXPORT_ID_FIELD.set(m, 0L, exportId);
        POOL_ID_FIELD.set(m, 0L, poolId);
        GROUP_FIELD.set(m, 0L, group);
        PID_NAMESPACE_FIELD.set(m, 0L, pidNamespace);
        System.arraycopy(handle, 0, data, HEADER_BYTES, handle.length);
        return data;
    }

    /**
     * Reads a descriptor.
     *
     * @param data the bytes {@link #toBytes()} wrote
     * @return the descriptor
     * @throws IllegalArgumentException naming what is wrong: too short or too long, not a descriptor, an unknown
     *                                  path, a reserved field that is not 0, handle bytes or file descriptor count
     *                                  that do not fit the path, a bad size
     */
    public static SharedMemoryDescriptor fromBytes(byte[] data) {
        Objects.requireNonNull(data, "data");
        if (data.length < HEADER_BYTES) {
            throw new IllegalArgumentException("truncated memory descriptor: " + data.length + " bytes, a descriptor"
                    + " has at least " + HEADER_BYTES);
        }
        MemorySegment m = MemorySegment.ofArray(data);
        long magic = (long) MAGIC_FIELD.get(m, 0L);
        if (magic != MAGIC) {
            throw new IllegalArgumentException("not a memory descriptor (magic 0x" + Long.toHexString(magic) + ")");
        }
        int pathCode = (short) PATH_FIELD.get(m, 0L);
        int fds = (short) FDS_FIELD.get(m, 0L);
        int handleLength = Short.toUnsignedInt((short) HANDLE_LENGTH_FIELD.get(m, 0L));
        int spare = (short) SPARE_FIELD.get(m, 0L);
        IpcPath path = IpcPath.ofWireCode(pathCode).orElseThrow(() -> new IllegalArgumentException(
                "memory descriptor names an unknown path " + pathCode));
        if (data.length != HEADER_BYTES + handleLength) {
            throw new IllegalArgumentException((data.length < HEADER_BYTES + handleLength ? "truncated" : "over-long")
                    + " memory descriptor: " + data.length + " bytes, its header announces "
                    + (HEADER_BYTES + handleLength));
        }
        if (spare != 0) {
            // Written as 0 by every writer of this format: anything else is another format or corruption.
            throw new IllegalArgumentException("memory descriptor has " + spare + " in its reserved field, which is"
                    + " always 0");
        }
        long bytes = (long) BYTES_FIELD.get(m, 0L);
        checkFields(path, handleLength, fds, bytes);
        return new SharedMemoryDescriptor(path, fds, bytes,
                new UUID((long) DEVICE_MOST_FIELD.get(m, 0L), (long) DEVICE_LEAST_FIELD.get(m, 0L)),
                (long) PID_FIELD.get(m, 0L), (long) TOKEN_FIELD.get(m, 0L), (long) EXPORT_ID_FIELD.get(m, 0L),
                (long) POOL_ID_FIELD.get(m, 0L), (long) GROUP_FIELD.get(m, 0L), (long) PID_NAMESPACE_FIELD.get(m, 0L),
                Arrays.copyOfRange(data, HEADER_BYTES, data.length));
    }

    /** What read bytes and built descriptors alike must satisfy: the handle and descriptor counts of the path. */
    private static void checkFields(IpcPath path, int handleLength, int fds, long bytes) {
        int expectedHandle = handleBytes(path);
        if (handleLength != expectedHandle || fds != (path.needsFileDescriptor() ? 1 : 0)) {
            throw new IllegalArgumentException("memory descriptor for " + path.displayName() + " carries "
                    + handleLength + " handle bytes and " + fds + " file descriptors; that path needs "
                    + expectedHandle + " and " + (path.needsFileDescriptor() ? 1 : 0));
        }
        if (bytes < 1) {
            throw new IllegalArgumentException("memory descriptor has a bad size " + bytes);
        }
    }

    /** The handle bytes a path's descriptor carries. */
    private static int handleBytes(IpcPath path) {
        return switch (path) {
            case LEGACY, VMM_FABRIC, POOL_FD -> 64;
            case VMM_FD -> 0;
            case POOL_FABRIC -> 128;
        };
    }

    private static VarHandle field(String name) {
        return HEADER.varHandle(groupElement(name));
    }

    /**
     * {@return a builder of the descriptor of {@code path}, for an export described in another form (a JSON
     * descriptor): its process token is 0, so the descriptor never counts as {@linkplain #exportedHere() exported
     * here}, and its file descriptor count is the path's}
     *
     * @param path the way the memory is shared
     */
    public static Builder builder(IpcPath path) {
        return new Builder(Objects.requireNonNull(path, "path"));
    }

    /** The fields of a descriptor, set one by one; {@link #build()} checks them as {@link #fromBytes} does. */
    public static final class Builder {
        private final IpcPath path;
        private long bytes;
        private UUID device;
        private long exporterPid;
        private long pidNamespace;
        private long exportId;
        private long poolId;
        private long group;
        private byte[] handle = new byte[0];

        private Builder(IpcPath path) {
            this.path = path;
        }

        /**
         * {@return this builder, with the size an importer maps}
         *
         * @param bytes at least 1
         */
        public Builder bytes(long bytes) {
            this.bytes = bytes;
            return this;
        }

        /**
         * {@return this builder, with the exporter's device}
         *
         * @param device the device's UUID
         */
        public Builder device(UUID device) {
            this.device = Objects.requireNonNull(device, "device");
            return this;
        }

        /**
         * {@return this builder, with the exporter's process}
         *
         * @param pid its pid, in its PID namespace
         * @param pidNamespace the inode of its PID namespace, 0 when unknown
         */
        public Builder exporter(long pid, long pidNamespace) {
            this.exporterPid = pid;
            this.pidNamespace = pidNamespace;
            return this;
        }

        /**
         * {@return this builder, with the export's number among its exporter's exports}
         *
         * @param exportId the export id
         */
        public Builder exportId(long exportId) {
            this.exportId = exportId;
            return this;
        }

        /**
         * {@return this builder, with the exporter's pool (the pool paths; 0 for the others)}
         *
         * @param poolId the pool's id, unique per exporter
         */
        public Builder poolId(long poolId) {
            this.poolId = poolId;
            return this;
        }

        /**
         * {@return this builder, with the group the descriptor belongs to (0, none, unless set)}
         *
         * @param group the group's id
         */
        public Builder group(long group) {
            this.group = group;
            return this;
        }

        /**
         * {@return this builder, with the path's handle bytes (see the class comment for each path's)}
         *
         * @param handle the handle bytes, copied
         */
        public Builder handle(byte[] handle) {
            this.handle = handle.clone();
            return this;
        }

        /**
         * {@return the descriptor}
         *
         * @throws IllegalArgumentException when the handle bytes do not fit the path or the size is below 1 byte
         * @throws NullPointerException when no device was set
         */
        public SharedMemoryDescriptor build() {
            Objects.requireNonNull(device, "device");
            int fds = path.needsFileDescriptor() ? 1 : 0;
            checkFields(path, handle.length, fds, bytes);
            return new SharedMemoryDescriptor(path, fds, bytes, device, exporterPid, 0, exportId, poolId, group,
                    pidNamespace, handle.clone());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SharedMemoryDescriptor d && d.exporterToken == exporterToken && d.exportId == exportId
                && d.exporterPid == exporterPid && d.path == path && d.bytes == bytes && d.group == group
                && Arrays.equals(d.handle, handle);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(exporterToken) * 31 + Long.hashCode(exportId);
    }

    @Override
    public String toString() {
        return "memory descriptor " + path.displayName() + " of " + bytes + " bytes from pid " + exporterPid
                + " (export " + exportId + (handle.length > 0 ? ", handle " + HexFormat.of().formatHex(handle, 0, 8)
                + "..." : "") + ")";
    }
}
