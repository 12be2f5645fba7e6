package org.cudaipc4j.interop.opening;

import java.lang.invoke.MethodHandles;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.coord.ExportHolders;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.coord.fd.PidFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.ImportedMemory;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.interop.BinaryDescriptors;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.ProducerEvent;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.interop.torch.TorchLeases;
import org.cudaipc4j.interop.torch.TorchReader;
import org.cudaipc4j.interop.torch.TorchShare;
import org.cudaipc4j.interop.torch.TorchTensorView;

/**
 * A descriptor (or a bare torch handle) checked by {@link Descriptors#openable} and ready to open: what its open
 * needs is parsed (torch's share, the binary form of a legacy, VMM or pool export), so that {@link #open} does the
 * open's own work alone. Immutable; it can be opened more than once (each open maps anew, or takes another use of a
 * torch reader's mapping).
 */
public final class Openable {
    static {
        // Linked and initialized with this class, which a caller makes before it opens (Descriptors.openable): a
        // timed first open in a fresh process does not verify them inside its clock.
        try {
            MethodHandles.lookup().ensureInitialized(OpenedTensor.class);
            MethodHandles.lookup().ensureInitialized(Laps.class);
            MethodHandles.lookup().ensureInitialized(MemoryImporter.Step.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Descriptor descriptor;
    private final TorchHandle bareHandle;
    private final TorchShare share;
    /** A legacy, VMM or pool export's binary form; null for one of 0 bytes, which maps nothing. */
    private final SharedMemoryDescriptor binary;
    private final OpenOptions options;

    private Openable(Descriptor descriptor, TorchHandle bareHandle, TorchShare share, SharedMemoryDescriptor binary,
            OpenOptions options) {
        this.descriptor = descriptor;
        this.bareHandle = bareHandle;
        this.share = share;
        this.binary = binary;
        this.options = options;
    }

    static Openable of(Descriptor d, OpenOptions options) {
        int[] fds = options.fds();
        if (d.kind() == Descriptor.Kind.TORCH) {
            TorchShare share = TorchShare.of(d);
            if (fds != null) {
                requireFds(d, fds, chunkFds(share)); // an expandable segment's chunks, from the socket
            }
            return new Openable(d, null, share, null, options);
        }
        SharedMemoryDescriptor binary = d.bytes() > 0 ? BinaryDescriptors.toBinary(d) : null;
        if (d.handleType() == Descriptor.HandleType.POSIX_FD && fds == null) {
            if (d.fdNumbers() == null) {
                throw new OpenRefusedException("a " + d.kind().code() + " descriptor with posix_fd needs its file"
                        + " descriptor, which travels over the exporter's descriptor socket, not on a command line; a"
                        + " descriptor with fd_numbers is opened through pidfd_getfd");
            }
            if (binary != null && binary.fromAnotherPidNamespace()) {
                throw new OpenRefusedException("the exporter (pid " + d.exporter().pid() + ") runs in another PID"
                        + " namespace (" + d.exporter().pidNamespace() + "), where its fd_numbers cannot be taken"
                        + " with pidfd_getfd; receive the descriptor over the exporter's socket");
            }
        } else if (fds != null) {
            requireFds(d, fds, d.fds());
        }
        return new Openable(d, null, null, binary, options);
    }

    static Openable of(TorchHandle h) {
        if (h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT) {
            throw new OpenRefusedException("a bare 'e' handle does not say which bytes of its chunks are the storage;"
                    + " give the torch descriptor (cudaipc4j.share(tensor) in Python), which the torch reader opens");
        }
        return new Openable(null, h, null, null, OpenOptions.defaults());
    }

    /** The chunk fds a torch share's {@code 'e'} handle of POSIX fds lists; 0 for any other share. */
    private static int chunkFds(TorchShare share) {
        if (share.isEmpty()) {
            return 0;
        }
        TorchHandle h = share.handle();
        return h.type() == TorchHandle.Type.EXPANDABLE_SEGMENT && h.chunkKind() == TorchHandle.ChunkKind.POSIX_FD
                ? h.fds().length : 0;
    }

    private static void requireFds(Descriptor d, int[] fds, int expected) {
        int given = fds == null ? 0 : fds.length;
        if (given != expected) {
            throw new IllegalArgumentException("the " + d.kind().code() + " descriptor says " + expected + " fd(s), "
                    + given + " given");
        }
    }

    /**
     * Opens it into {@code context} (see {@link Descriptors#open}).
     *
     * @param context the context to map into
     * @param stream a stream of {@code context} that will read the memory: it waits on the descriptor's event
     * @return the opened tensor, owned by the caller (and by the context, if that closes first)
     * @throws IllegalArgumentException when the stream or the options' torch reader belongs to another context
     */
    public OpenedTensor open(Context context, Stream stream) {
        if (stream.context() != context) {
            throw new IllegalArgumentException("the stream belongs to " + stream.context() + ", not to " + context);
        }
        if (bareHandle != null) {
            return openBareHandle(context);
        }
        if (share != null) {
            return openTorch(context, stream);
        }
        if (binary == null) {
            return new OpenedTensor(context, 0, 0, descriptor.tensor(), false, false);
        }
        return openExport(context, stream);
    }

    /** A bare {@code 'c'} handle: the whole block, its size the driver's. */
    private OpenedTensor openBareHandle(Context context) {
        IpcMappedMemory m = IpcMemHandle.fromBytes(bareHandle.ipcMemHandle()).open(context, true);
        try {
            return new OpenedTensor(context, m.address(), m.bytes(), null, false, true, m);
        } catch (RuntimeException e) {
            Closing.closeAfter(m, e); // the context closed meanwhile
            throw e;
        }
    }

    /** A torch share through the caller's reader, or through leases and a reader of the open's own. */
    private OpenedTensor openTorch(Context context, Stream stream) {
        TorchReader reader = options.torchReader();
        TorchLeases leases = null;
        if (reader == null) {
            leases = TorchLeases.start();
            reader = new TorchReader(context, leases);
        } else if (reader.context() != context) {
            throw new IllegalArgumentException("the torch reader maps into " + reader.context() + ", not into "
                    + context);
        }
        TorchTensorView view;
        try {
            view = reader.open(share, stream, options.phases(), options.fds());
        } catch (RuntimeException e) {
            if (leases != null) {
                Closing.closeAfter(leases, e);
            }
            throw e;
        }
        try {
            // The view waits for the context's work itself before it unmaps; the leases end after it.
            return new OpenedTensor(context, view.address(), view.bytes(), view.layout(), view.cacheHit(), false,
                    view, leases);
        } catch (RuntimeException e) {
            TorchLeases own = leases;
            Closing.closeAfter(() -> Closing.closeAll(view, own), e); // the context closed meanwhile
            throw e;
        }
    }

    /**
     * A legacy, VMM or pool export through a fresh importer: signed into the exporter's holder table first (so the
     * exporter keeps the memory while it is mapped), mapped, then the stream made to wait on the event.
     */
    private OpenedTensor openExport(Context context, Stream stream) {
        OpenPhases phases = options.phases();
        OpenPhases.start(phases);
        // What the open takes, in the order taken: holder table, hold, importer, mapping. Given back the other way.
        AutoCloseable[] taken = new AutoCloseable[4];
        int n = 0;
        try {
            String holdersName = descriptor.exporter().holders();
            if (holdersName != null) {
                ExportHolders holders = ExportHolders.open(holdersName);
                taken[n++] = holders;
                taken[n++] = holders.hold(descriptor.exporter().exportId());
                OpenPhases.lap(phases, OpenPhases.Phase.HOLD);
            }
            MemoryImporter importer = MemoryImporter.open(context, 0); // nothing kept once this tensor closes
            taken[n++] = importer;
            ImportedMemory memory = map(importer, phases);
            taken[n++] = memory;
            Descriptor.Event event = descriptor.event();
            if (event != null && event.waitRequired()) {
                ProducerEvent.queueWait(context, stream, event.ipcHandle(), phases);
            }
            OpenedTensor t = new OpenedTensor(context, memory.address(), descriptor.bytes(), descriptor.tensor(),
                    false, true, reversed(taken, n));
            OpenPhases.lap(phases, OpenPhases.Phase.VIEW);
            return t;
        } catch (RuntimeException e) {
            AutoCloseable[] giveBack = reversed(taken, n);
            Closing.closeAfter(() -> Closing.closeAll(giveBack), e);
            throw e;
        }
    }

    /** The first {@code n} of {@code taken}, last first. */
    private static AutoCloseable[] reversed(AutoCloseable[] taken, int n) {
        AutoCloseable[] r = new AutoCloseable[n];
        for (int i = 0; i < n; i++) {
            r[i] = taken[n - 1 - i];
        }
        return r;
    }

    /**
     * Maps the export; a {@code posix_fd} export's descriptors are the caller's, or taken from the exporter by number
     * and closed here once the driver has imported them (it holds its own reference).
     */
    private ImportedMemory map(MemoryImporter importer, OpenPhases phases) {
        MemoryImporter.StepListener steps = phases == null ? null : new Laps(phases);
        int[] given = options.fds();
        if (given != null || binary.fileDescriptorCount() == 0) {
            return importer.map(binary, steps, given == null ? new int[0] : given);
        }
        OwnedFd[] fds = new OwnedFd[binary.fileDescriptorCount()];
        try {
            int[] numbers = descriptor.fdNumbers();
            int[] values = new int[fds.length];
            for (int i = 0; i < fds.length; i++) {
                fds[i] = PidFd.take(descriptor.exporter().pid(), numbers[i]);
                values[i] = fds[i].value();
            }
            OpenPhases.lap(phases, OpenPhases.Phase.PIDFD);
            return importer.map(binary, steps, values);
        } finally {
            Closing.closeAll(fds);
            OpenPhases.lap(phases, OpenPhases.Phase.FD_CLOSE);
        }
    }

    /**
     * The importer's steps as phases of the open. A class, not a lambda, with no switch: a timed first open in a
     * fresh process does not link a lambda or load a switch's map inside its clock.
     */
    private static final class Laps implements MemoryImporter.StepListener {
        private final OpenPhases phases;

        Laps(OpenPhases phases) {
            this.phases = phases;
        }

        @Override
        public void ended(MemoryImporter.Step step) {
            phases.lap(step == MemoryImporter.Step.IPC_OPEN ? OpenPhases.Phase.IPC_OPEN
                    : step == MemoryImporter.Step.VMM_MAP ? OpenPhases.Phase.VMM_MAP
                    : step == MemoryImporter.Step.POOL_IMPORT ? OpenPhases.Phase.POOL_IMPORT
                    : OpenPhases.Phase.POINTER_IMPORT);
        }
    }
}
