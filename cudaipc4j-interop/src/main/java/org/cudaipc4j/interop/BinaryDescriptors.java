package org.cudaipc4j.interop;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.UUID;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;

/**
 * Between the JSON descriptor and the binary {@link SharedMemoryDescriptor} that simpleIPC's hot path sends: the
 * same allocation (legacy, VMM, pool) either way. The binary form's layout is
 * {@link SharedMemoryDescriptor}'s own (its Javadoc; {@link SharedMemoryDescriptor#fromBytes} checks what is built
 * here, and the tests pin both forms against each other):
 * <pre>
 *   0  "CIPCDSC1"   8  path ({@link IpcPath#wireCode()}, 16 bits)   10 fds (16)   12 handle length (16)   14 spare
 *   16 size   24 UUID (most, least significant)   40 pid   48 process token   56 export id   64 pool id
 *   72 group   80 PID namespace   88 handle bytes (legacy 64; vmm-fd 0; vmm-fabric 64; pool-fd the pointer's 64;
 *   pool-fabric the pointer's 64 then the pool's fabric handle's 64)
 * </pre>
 * What only one form has: the binary process token (which tells "exported by this very process") and group
 * (simpleIPC's check that a descriptor belongs to its run) do not travel in JSON; from JSON the token is 0 (never
 * this process) and the group 0. The JSON tensor, event and fd numbers do not travel in the binary form.
 */
public final class BinaryDescriptors {
    private static final long MAGIC = 0x3143_5344_4350_4943L;
    private static final int HEADER = 88;

    private BinaryDescriptors() {}

    /**
     * {@return the binary form of a legacy, VMM or pool descriptor}
     *
     * @param d the descriptor
     * @throws IllegalArgumentException for a torch descriptor (torch's handle is not one of ours) or a size of 0
     */
    public static SharedMemoryDescriptor toBinary(Descriptor d) {
        IpcPath path;
        byte[] handle;
        switch (d.kind()) {
            case LEGACY -> {
                path = IpcPath.LEGACY;
                handle = d.ipcHandle();
            }
            case VMM -> {
                boolean fd = d.handleType() == Descriptor.HandleType.POSIX_FD;
                path = fd ? IpcPath.VMM_FD : IpcPath.VMM_FABRIC;
                handle = fd ? new byte[0] : d.fabricHandle();
            }
            case POOL -> {
                boolean fd = d.handleType() == Descriptor.HandleType.POSIX_FD;
                path = fd ? IpcPath.POOL_FD : IpcPath.POOL_FABRIC;
                handle = fd ? d.pointerExport() : concat(d.pointerExport(), d.fabricHandle());
            }
            default -> throw new IllegalArgumentException("a torch descriptor has no binary form: open it through"
                    + " torch's handle");
        }
        if (d.bytes() < 1) {
            throw new IllegalArgumentException("the binary descriptor needs a size of at least 1 byte, got "
                    + d.bytes());
        }
        ByteBuffer b = ByteBuffer.allocate(HEADER + handle.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(MAGIC).putShort((short) path.wireCode()).putShort((short) (path.needsFileDescriptor() ? 1 : 0))
                .putShort((short) handle.length).putShort((short) 0).putLong(d.bytes())
                .putLong(d.deviceUuid().getMostSignificantBits()).putLong(d.deviceUuid().getLeastSignificantBits())
                .putLong(d.exporter().pid()).putLong(0L).putLong(d.exporter().exportId())
                .putLong(d.kind() == Descriptor.Kind.POOL ? d.poolId() : 0L).putLong(0L)
                .putLong(d.exporter().pidNamespace()).put(handle);
        return SharedMemoryDescriptor.fromBytes(b.array());
    }

    /**
     * {@return the JSON form of a binary descriptor (see the class comment for what stays behind)}
     *
     * @param s the binary descriptor
     */
    public static Descriptor fromBinary(SharedMemoryDescriptor s) {
        ByteBuffer b = ByteBuffer.wrap(s.toBytes()).order(ByteOrder.LITTLE_ENDIAN);
        b.position(16);
        long bytes = b.getLong();
        UUID device = new UUID(b.getLong(), b.getLong());
        long pid = b.getLong();
        b.getLong(); // process token
        long exportId = b.getLong();
        long poolId = b.getLong();
        b.getLong(); // group
        long pidNamespace = b.getLong();
        byte[] handle = s.handle();
        Descriptor.Exporter exporter = new Descriptor.Exporter(pid, pidNamespace, exportId);
        return switch (s.path()) {
            case LEGACY -> Descriptor.legacy(device, bytes, exporter, handle);
            case VMM_FD -> Descriptor.vmmFd(device, bytes, exporter);
            case VMM_FABRIC -> Descriptor.vmmFabric(device, bytes, exporter, handle);
            case POOL_FD -> Descriptor.poolFd(device, bytes, exporter, poolId, handle);
            case POOL_FABRIC -> Descriptor.poolFabric(device, bytes, exporter, poolId,
                    Arrays.copyOfRange(handle, 64, 128), Arrays.copyOfRange(handle, 0, 64));
        };
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
