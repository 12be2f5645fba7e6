package org.cudaipc4j.interop;

import java.util.Arrays;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;

/**
 * Between the JSON descriptor and the binary {@link SharedMemoryDescriptor} that simpleIPC's hot path sends: the
 * same allocation (legacy, VMM, pool) either way. The binary layout is {@link SharedMemoryDescriptor}'s own, written
 * in one place there (its Javadoc; {@link SharedMemoryDescriptor#builder} checks what is built here, and the tests
 * pin both forms against each other). The pool-fabric path's handle bytes are the pointer's 64 export bytes, then
 * the pool's 64-byte fabric handle.
 *
 * <p>What only one form has: the binary process token (which tells "exported by this very process") and group
 * (simpleIPC's check that a descriptor belongs to its run) do not travel in JSON; from JSON the token is 0 (never
 * this process) and the group 0. The JSON tensor, event and fd numbers do not travel in the binary form.
 */
public final class BinaryDescriptors {
    private BinaryDescriptors() {}

    /**
     * {@return the binary form of a legacy, VMM or pool descriptor}
     *
     * @param d the descriptor
     * @throws IllegalArgumentException for a torch descriptor (torch's handle is not one of ours) or a size of 0
     */
    public static SharedMemoryDescriptor toBinary(Descriptor d) {
        boolean fd = d.handleType() == Descriptor.HandleType.POSIX_FD;
        SharedMemoryDescriptor.Builder b = switch (d.kind()) {
            case LEGACY -> SharedMemoryDescriptor.builder(IpcPath.LEGACY).handle(d.ipcHandle());
            case VMM -> fd ? SharedMemoryDescriptor.builder(IpcPath.VMM_FD)
                    : SharedMemoryDescriptor.builder(IpcPath.VMM_FABRIC).handle(d.fabricHandle());
            case POOL -> (fd ? SharedMemoryDescriptor.builder(IpcPath.POOL_FD).handle(d.pointerExport())
                    : SharedMemoryDescriptor.builder(IpcPath.POOL_FABRIC)
                            .handle(concat(d.pointerExport(), d.fabricHandle()))).poolId(d.poolId());
            case TORCH -> throw new IllegalArgumentException("a torch descriptor has no binary form: open it through"
                    + " torch's handle");
        };
        if (d.bytes() < 1) {
            throw new IllegalArgumentException("the binary descriptor needs a size of at least 1 byte, got "
                    + d.bytes());
        }
        return b.bytes(d.bytes()).device(d.deviceUuid()).exporter(d.exporter().pid(), d.exporter().pidNamespace())
                .exportId(d.exporter().exportId()).build();
    }

    /**
     * {@return the JSON form of a binary descriptor (see the class comment for what stays behind)}
     *
     * @param s the binary descriptor
     */
    public static Descriptor fromBinary(SharedMemoryDescriptor s) {
        Descriptor.Exporter exporter = new Descriptor.Exporter(s.exporterPid(), s.pidNamespace(), s.exportId());
        byte[] handle = s.handle();
        return switch (s.path()) {
            case LEGACY -> Descriptor.legacy(s.device(), s.bytes(), exporter, handle);
            case VMM_FD -> Descriptor.vmmFd(s.device(), s.bytes(), exporter);
            case VMM_FABRIC -> Descriptor.vmmFabric(s.device(), s.bytes(), exporter, handle);
            case POOL_FD -> Descriptor.poolFd(s.device(), s.bytes(), exporter, s.poolId(), handle);
            case POOL_FABRIC -> Descriptor.poolFabric(s.device(), s.bytes(), exporter, s.poolId(),
                    Arrays.copyOfRange(handle, 64, 128), Arrays.copyOfRange(handle, 0, 64));
        };
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
