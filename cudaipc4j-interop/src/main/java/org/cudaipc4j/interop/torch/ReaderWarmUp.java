package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.cuda.ipc.ChunkedVmmMapping;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.ipc.IpcEventHandle;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;

/**
 * {@link TorchReader#warmUp}: runs what an open runs, on scratch memory of this process, so that a fresh process's
 * first open pays the driver's own work only: the classes of the open path loaded and initialised, its call sites
 * (var handles on mapped files, the lease book, file channels) linked, its native functions called once.
 */
final class ReaderWarmUp {

    private ReaderWarmUp() {}

    /**
     * The open path's Java side, without a GPU: a counter file laid out as torch's in a private temporary
     * directory, leased twice through a scratch book (a first share and a cache hit, so both branches run), given
     * back, removed; a storage key and block key of each handle type; the producer's start time read (this process).
     *
     * @param fds the reader's pidfd calls, run on this process's own scratch descriptor
     */
    static void javaPath(ProducerFds fds) {
        Path dir;
        try {
            dir = Files.createTempDirectory("cudaipc4j-warm");
        } catch (IOException e) {
            throw new UncheckedIOException("the torch reader's warm-up cannot make a temporary directory", e);
        }
        try {
            TorchCounterFile file = TorchCounterFile.create(dir, 0);
            try (TorchLeases leases = TorchLeases.start(dir, false, 2)) {
                file.set(0, 1);
                file.set(1, 1);
                TorchShare share = new TorchShare(0, TorchHandle.parse(new byte[TorchHandle.IPC_HANDLE_BYTES]), 1, 0,
                        file.name(), 0, new byte[64], true, TensorLayout.contiguous(DType.UINT8, 1));
                OpenPhases phases = new OpenPhases();
                phases.start();
                TorchStorageKey key = TorchStorageKey.of(share, 0);
                TorchReader.blockKey(share.handle(), 0);
                Lease first = leases.acquire(key, file.name(), 0, phases);
                Lease hit = leases.acquire(key, file.name(), 1, phases);
                hit.release();
                first.release();
                phases.byCode();
            } finally {
                file.delete();
            }
            TorchStorageKey.processStartTime(ProcessHandle.current().pid());
            ownDescriptor(fds);
        } finally {
            try {
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // an empty directory in the temporary directory; nothing holds it
            }
        }
    }

    /** {@code pidfd_open}, {@code pidfd_getfd} and {@code close} on a descriptor of this process's own. */
    private static void ownDescriptor(ProducerFds fds) {
        Libc.Result own = Libc.memfdCreate("cudaipc4j-warm");
        if (own.value() < 0) {
            return;
        }
        try {
            int[] taken = fds.take((int) ProcessHandle.current().pid(), new int[] {own.value()});
            fds.close(taken, taken.length);
        } catch (TorchInteropException refused) {
            // pidfd_getfd refused here (seccomp, old kernel): an 'e' open reports it for real
        } finally {
            Libc.close(own.value());
        }
    }

    /**
     * The open path's driver side in {@code context} (current), with its own memory: an event made, waited on by
     * {@code stream}, destroyed; the legacy handle classes loaded; one granule of this device's VMM memory exported
     * and mapped back as an expandable segment's chunks are ({@link ChunkedVmmMapping}), then released; an empty view
     * made and closed.
     */
    static void driverPath(TorchReader reader, Context context, Stream stream) {
        context.makeCurrent();
        try (Event e = Event.create(context)) {
            stream.waitEvent(e);
        }
        IpcMemHandle.fromBytes(new byte[64]);
        IpcEventHandle.fromBytes(new byte[64]);
        load(IpcMappedMemory.class);
        load(TorchInteropException.class);
        load(ReleaseOutcome.class);
        ChunkedVmmMapping.warmUp(context);
        reader.open(new TorchShare(0, null, 0, 0, null, -1, null, false, null), stream).close();
    }

    private static void load(Class<?> c) {
        try {
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
