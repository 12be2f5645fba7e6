package org.cudaipc4j.interop.opening;

import java.util.Set;
import org.cudaipc4j.base.WarmUpRounds;
import org.cudaipc4j.coord.fd.PidFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.interop.BinaryDescriptors;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.torch.TorchReader;

/** {@link Descriptors#warmUp}: the warm-ups of what an open runs through, then the open's own path. */
final class OpenWarmUp {
    /** The most rounds of the open's own path on an empty storage: enough for the JIT's optimizing tier. */
    static final int ROUNDS = 4000;
    /** The time those rounds may take in all (each opens and closes nothing but a view of nothing). */
    static final long BUDGET_NANOS = 20_000_000;

    private OpenWarmUp() {}

    static void run(Context context, Stream stream, OpenOptions options) {
        TorchReader reader = options.torchReader();
        if (reader != null) {
            // The reader's warm-up first: it loads the classes the open meets, so the open's own rounds are compiled
            // against all of them and no later load undoes what the compiler assumed.
            reader.warmUp(stream);
            torchPath(context, stream, reader);
        } else {
            try (MemoryImporter importer = MemoryImporter.open(context, 0)) {
                importer.warmUp();
            }
            PidFd.warmUp();
            exportPath(context, stream);
        }
    }

    /**
     * Opens of an empty torch storage of this process (no handle, no counter, no event) through the reader: the
     * open's path, the reader's empty branch and the opened tensor's close, mapping and leasing nothing.
     */
    private static void torchPath(Context context, Stream stream, TorchReader reader) {
        Descriptor empty = Descriptor.torch(null, new Descriptor.Exporter(ProcessHandle.current().pid(), 0, 0),
                new Descriptor.Torch(null, 0, 0, null, -1, 0));
        Openable open = Descriptors.openable(empty, OpenOptions.defaults().withTorchReader(reader));
        WarmUpRounds.repeat(() -> {
            open.open(context, stream).close();
            return true;
        }, ROUNDS, BUDGET_NANOS);
    }

    /**
     * One granule of this device's memory exported with a file descriptor and opened back through the open with a
     * phases record, then closed: the open's export path run once, its calls resolved and its classes initialized.
     * Best effort: on a device without VMM, or where the driver refuses, the first real open pays it.
     */
    private static void exportPath(Context context, Stream stream) {
        try (VmmAllocation local = VmmAllocation.create(context, 1, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
                SharedMemoryExport export = SharedMemoryExport.of(local)) {
            Descriptor own = BinaryDescriptors.fromBinary(export.descriptor()); // no longer "exported here"
            OpenOptions options = OpenOptions.defaults().withFds(export.fileDescriptors())
                    .withPhases(new OpenPhases());
            Descriptors.open(own, context, stream, options).close();
        } catch (CudaException | IllegalArgumentException | IllegalStateException e) {
            // not warmed: the first open pays, and reports a real failure itself
        }
    }
}
