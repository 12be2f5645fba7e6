package org.cudaipc4j.cuda.ipc;

import java.nio.ByteBuffer;
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
 * <p>As bytes ({@link #toBytes()}, little-endian): magic {@code "CIPCDSC1"}, then path (its
 * {@linkplain IpcPath#wireCode() wire code}, never its position in the enum), file descriptor count,
 * handle length (16-bit each, one spare), size, device UUID, exporter pid, exporter token, export id, pool id,
 * group, the exporter's PID namespace (the inode of {@code /proc/self/ns/pid}, 0 when unknown), handle bytes. {@link #fromBytes} checks each part and says what is wrong with a truncated or foreign
 * descriptor. The group is the exporter's choice (0 for none); an importer can insist on it
 * ({@link #requireGroup}). An immutable value.
 */
public final class SharedMemoryDescriptor {
    /** "CIPCDSC1" read as a little-endian long. */
    private static final long MAGIC = 0x3143_5344_4350_4943L;
    private static final int HEADER = 8 + 8 + 8 + 16 + 8 * 6;
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

    long poolId() {
        return poolId;
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
        ByteBuffer b = ByteBuffer.allocate(HEADER + handle.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(MAGIC).putShort((short) path.wireCode()).putShort((short) fileDescriptorCount)
                .putShort((short) handle.length).putShort((short) 0).putLong(bytes)
                .putLong(device.getMostSignificantBits()).putLong(device.getLeastSignificantBits())
                .putLong(exporterPid).putLong(exporterToken).putLong(exportId).putLong(poolId).putLong(group)
                .putLong(pidNamespace).put(handle);
        return b.array();
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
        if (data.length < HEADER) {
            throw new IllegalArgumentException("truncated memory descriptor: " + data.length + " bytes, a descriptor"
                    + " has at least " + HEADER);
        }
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        long magic = b.getLong();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("not a memory descriptor (magic 0x" + Long.toHexString(magic) + ")");
        }
        int pathCode = b.getShort();
        int fds = b.getShort();
        int handleLength = Short.toUnsignedInt(b.getShort());
        int spare = b.getShort();
        IpcPath path = IpcPath.ofWireCode(pathCode).orElseThrow(() -> new IllegalArgumentException(
                "memory descriptor names an unknown path " + pathCode));
        if (data.length != HEADER + handleLength) {
            throw new IllegalArgumentException((data.length < HEADER + handleLength ? "truncated" : "over-long")
                    + " memory descriptor: " + data.length + " bytes, its header announces " + (HEADER + handleLength));
        }
        if (spare != 0) {
            // Written as 0 by every writer of this format: anything else is another format or corruption.
            throw new IllegalArgumentException("memory descriptor has " + spare + " in its reserved field, which is"
                    + " always 0");
        }
        int expectedHandle = switch (path) {
            case LEGACY, VMM_FABRIC, POOL_FD -> 64;
            case VMM_FD -> 0;
            case POOL_FABRIC -> 128;
        };
        if (handleLength != expectedHandle || fds != (path.needsFileDescriptor() ? 1 : 0)) {
            throw new IllegalArgumentException("memory descriptor for " + path.displayName() + " carries "
                    + handleLength + " handle bytes and " + fds + " file descriptors; that path needs "
                    + expectedHandle + " and " + (path.needsFileDescriptor() ? 1 : 0));
        }
        long bytes = b.getLong();
        if (bytes < 1) {
            throw new IllegalArgumentException("memory descriptor has a bad size " + bytes);
        }
        UUID device = new UUID(b.getLong(), b.getLong());
        long pid = b.getLong();
        long token = b.getLong();
        long exportId = b.getLong();
        long poolId = b.getLong();
        long group = b.getLong();
        long pidNamespace = b.getLong();
        byte[] handle = new byte[handleLength];
        b.get(handle);
        return new SharedMemoryDescriptor(path, fds, bytes, device, pid, token, exportId, poolId, group, pidNamespace,
                handle);
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
