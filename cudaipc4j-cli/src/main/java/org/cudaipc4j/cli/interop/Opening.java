package org.cudaipc4j.cli.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.cudaipc4j.coord.ExportHolders;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.coord.fd.PidFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.ipc.ImportedMemory;
import org.cudaipc4j.cuda.ipc.IpcEventHandle;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.BinaryDescriptors;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.interop.torch.TorchLeases;
import org.cudaipc4j.interop.torch.TorchReader;
import org.cudaipc4j.interop.torch.TorchShare;
import org.cudaipc4j.interop.torch.TorchTensorView;

/**
 * How {@code interop open} maps one input, and the mapping itself:
 * <ul>
 *   <li>a bare torch {@code 'c'} (or raw) handle: {@code cuIpcOpenMemHandle} on {@code --device}, the whole block of
 *       torch's caching allocator as one uint8 tensor (the handle carries no size, offset or layout);</li>
 *   <li>a {@code torch} descriptor: torch's reader ({@link TorchReader}), which waits on the producer's event and
 *       gives the share's slot back when done, its lease watched ({@link TorchLeases#start()});</li>
 *   <li>{@code legacy}, {@code vmm} and {@code pool} descriptors: the library's importer ({@link MemoryImporter}),
 *       signed into the exporter's holder table while mapped; a {@code posix_fd} descriptor's file descriptors taken
 *       from the exporter by its {@code fd_numbers} ({@code pidfd_getfd}), the only way a descriptor given on a
 *       command line brings them.</li>
 * </ul>
 * Not from the command line: a bare expandable-segment handle ({@code 'e'}; its torch descriptor opens), a
 * {@code posix_fd} descriptor without {@code fd_numbers} (its fds travel over the exporter's socket) or from
 * another PID namespace.
 */
final class Opening {
    private final InteropInput input;
    /** The share of a torch descriptor, checked before the driver is touched. */
    private final TorchShare share;

    private Opening(InteropInput input, TorchShare share) {
        this.input = input;
        this.share = share;
    }

    /**
     * The opening of {@code input}; a torch descriptor's share is checked here.
     *
     * @throws BadInputException when torch's fields do not make a share torch would send
     */
    static Opening of(InteropInput input) {
        TorchShare share = null;
        if (input instanceof InteropInput.Json j && j.descriptor().kind() == Descriptor.Kind.TORCH) {
            try {
                share = TorchShare.of(j.descriptor());
            } catch (IllegalArgumentException e) {
                throw new BadInputException(e.getMessage());
            }
        }
        return new Opening(input, share);
    }

    /** Why the command line cannot open this input (one phrase), or null when it can try. */
    String whyNot() {
        if (input instanceof InteropInput.Handle h && h.handle().type() == TorchHandle.Type.EXPANDABLE_SEGMENT) {
            return "a bare 'e' handle does not say which bytes of its chunks are the storage; give the torch"
                    + " descriptor (cudaipc4j.share(tensor) in Python), which the torch reader opens";
        }
        if (input instanceof InteropInput.Json j) {
            Descriptor d = j.descriptor();
            if (d.handleType() == Descriptor.HandleType.POSIX_FD) {
                if (d.fdNumbers() == null) {
                    return "a " + d.kind().code() + " descriptor with posix_fd needs its file descriptor, which"
                            + " travels over the exporter's descriptor socket, not on a command line; a descriptor"
                            + " with fd_numbers is opened through pidfd_getfd";
                }
                if (d.bytes() > 0 && BinaryDescriptors.toBinary(d).fromAnotherPidNamespace()) {
                    return "the exporter (pid " + d.exporter().pid() + ") runs in another PID namespace ("
                            + d.exporter().pidNamespace() + "), where its fd_numbers cannot be taken with"
                            + " pidfd_getfd; receive the descriptor over the exporter's socket";
                }
            }
        }
        return null;
    }

    /**
     * Maps the input on its device (a descriptor's UUID, else {@code ordinal}) and gives one line per tensor.
     *
     * @throws BadInputException when {@code ordinal} names no device
     */
    List<String> open(int ordinal) {
        UUID uuid = input instanceof InteropInput.Json j ? j.descriptor().deviceUuid() : null;
        Device device;
        if (uuid != null) {
            device = Device.byUuid(uuid);
        } else {
            int count = Device.count();
            if (ordinal >= count) {
                throw new BadInputException("--device " + ordinal + ": no such device (" + count + " visible)");
            }
            device = Device.get(ordinal);
        }
        List<String> lines = new ArrayList<>();
        try (Context context = Context.retainPrimary(device)) {
            Stream stream = Stream.create(context, false);
            try {
                switch (input) {
                    case InteropInput.Handle h -> lines.add(bareHandle(context, h.handle()));
                    case InteropInput.Json j when share != null -> lines.add(torch(context, stream));
                    case InteropInput.Json j -> lines.add(exported(context, stream, j.descriptor()));
                }
            } finally {
                stream.close();
            }
        }
        return lines;
    }

    /** A bare {@code 'c'} handle: the whole block. */
    private static String bareHandle(Context context, TorchHandle h) {
        try (IpcMappedMemory m = IpcMemHandle.fromBytes(h.ipcMemHandle()).open(context, true)) {
            return line(null, m.bytes(), m::copyTo);
        }
    }

    /** A torch descriptor through torch's reader; its slot is given back when the view closes. */
    private String torch(Context context, Stream stream) {
        try (TorchLeases leases = TorchLeases.start()) {
            TorchReader reader = new TorchReader(context, leases);
            try (TorchTensorView view = reader.open(share, stream)) {
                stream.synchronize();
                return line(view.layout(), view.bytes(), view::copyTo);
            }
        }
    }

    /** A legacy, VMM or pool export through the importer, held in the exporter's holder table while mapped. */
    private static String exported(Context context, Stream stream, Descriptor d) {
        if (d.bytes() == 0) {
            return line(d.tensor(), 0, (offset, dst) -> { });
        }
        SharedMemoryDescriptor binary = BinaryDescriptors.toBinary(d);
        String holdersName = d.exporter().holders();
        try (ExportHolders holders = holdersName == null ? null : ExportHolders.open(holdersName);
                ExportHolders.Hold hold = holders == null ? null : holders.hold(d.exporter().exportId());
                MemoryImporter importer = MemoryImporter.open(context, 0)) {
            ImportedMemory memory;
            if (binary.fileDescriptorCount() > 0) {
                int[] numbers = d.fdNumbers();
                List<OwnedFd> taken = new ArrayList<>();
                try {
                    int[] fds = new int[numbers.length];
                    for (int i = 0; i < numbers.length; i++) {
                        OwnedFd fd = PidFd.take(d.exporter().pid(), numbers[i]);
                        taken.add(fd);
                        fds[i] = fd.value();
                    }
                    memory = importer.map(binary, fds);
                } finally {
                    for (OwnedFd fd : taken) {
                        fd.close(); // the driver holds its own reference once mapped
                    }
                }
            } else {
                memory = importer.map(binary);
            }
            try (memory) {
                if (d.event() != null && d.event().waitRequired()) {
                    try (Event e = IpcEventHandle.fromBytes(d.event().ipcHandle()).open(context)) {
                        stream.waitEvent(e);
                    }
                }
                stream.synchronize();
                return line(d.tensor(), d.bytes(), memory::copyTo);
            }
        }
    }

    /** {@code 0 dtype shape sha256}; without a layout the memory's bytes are one uint8 tensor. */
    static String line(TensorLayout layout, long bytes, TensorDigest.Source source) {
        TensorLayout l = layout != null ? layout : TensorLayout.contiguous(DType.UINT8, bytes);
        return "0 " + l.dtype().stableName() + " " + Description.shape(l.shape()) + " "
                + TensorDigest.sha256(l, source);
    }
}
