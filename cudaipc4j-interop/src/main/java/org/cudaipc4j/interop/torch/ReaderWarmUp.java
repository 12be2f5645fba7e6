package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.base.WarmUpRounds;
import org.cudaipc4j.cuda.ipc.ChunkedVmmMapping;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.ipc.IpcOpenWarmUp;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.TorchHandle;

/**
 * {@link TorchReader#warmUp}: runs what an open runs, on scratch memory of this process, so that a fresh process's
 * first open pays the driver's own work only: the classes of the open path loaded and initialised, its call sites
 * (var handles on mapped files, the lease book, file channels) linked, its native functions called once.
 */
final class ReaderWarmUp {
    /**
     * How often the open path's Java side runs: enough calls for the JIT's first tier to compile its methods, so
     * that a state dict's many opens do not run interpreted.
     */
    static final int ROUNDS = 400;

    /** How often a re-open's Java side runs after those rounds. */
    static final int REOPEN_ROUNDS = 5000;

    /**
     * How often, at most, each step of the driver's side runs ({@link #driverPath}, {@link #successPath}): a fresh
     * JVM's downcall costs several microseconds until the JIT's optimizing tier has compiled its path, which takes
     * thousands of calls; each loop also stops at its time budget, since each round is the driver's work too.
     */
    static final int DRIVER_ROUNDS = 4000;

    /** The time the event rounds and the own share's cache hits may take, each loop in all. */
    static final long ROUNDS_BUDGET_NANOS = 100_000_000;

    /**
     * The time the own share's first opens may take in all: each maps and unmaps a block through the driver.
     */
    static final long FIRST_OPEN_BUDGET_NANOS = 250_000_000;

    /**
     * A version 2 {@code 'e'} handle as torch writes it (version, type, pid, padding, chunk size, chunk count, fd
     * numbers; little-endian): {@code pid}'s descriptors {@code fds}, chunks of {@code chunkBytes} each.
     */
    static byte[] expandableHandle(int pid, long chunkBytes, int... fds) {
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + 4 + 8 + 8 + 4 * fds.length).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) 2).put((byte) 'e').putInt(pid).putInt(0).putLong(chunkBytes).putLong(fds.length);
        for (int fd : fds) {
            b.putInt(fd);
        }
        return b.array();
    }

    /** Rounds of {@link #successPath} between two of {@link #otherBranches}. */
    static final int OTHER_BRANCHES_EVERY = 64;

    /** A legacy ({@code 'c'}) handle of 64 zero bytes: no process's, which the driver refuses. */
    private static final TorchHandle REFUSED_LEGACY = TorchHandle.parse(new byte[TorchHandle.IPC_HANDLE_BYTES]);

    /** An empty storage's share: opens as an empty view. */
    private static final TorchShare EMPTY = new TorchShare(0, null, 0, 0, null, -1, null, false, null);

    private ReaderWarmUp() {}

    /**
     * A one-byte share of {@code handle}'s storage at {@code offset}, with {@code slot} of {@code file}; with
     * {@code waitOnEvent}, an event to wait on of 64 zero bytes (no process's, which the driver refuses to open).
     */
    private static TorchShare share(TorchHandle handle, long offset, TorchCounterFile file, long slot,
            TensorLayout layout, boolean waitOnEvent) {
        return new TorchShare(0, handle, 1, offset, file.name(), slot, waitOnEvent ? new byte[64] : null, waitOnEvent,
                layout);
    }

    /**
     * The open path's Java side, without a GPU: a counter file laid out as torch's in a private temporary
     * directory, leased twice through a scratch book (a first share and a cache hit, so both branches run), given
     * back, {@value #ROUNDS} times; then, with the file kept mapped, a re-open and a first share of another storage
     * {@value #REOPEN_ROUNDS} times each; a storage key and block key of each handle type; the producer's start time
     * read (this process); the file removed.
     *
     * @param fds the reader's pidfd calls, run on this process's own scratch descriptor
     */
    static void javaPath(ProducerFds fds) {
        Path dir = scratchDirectory();
        try {
            TorchCounterFile file = TorchCounterFile.create(dir, 0);
            try (TorchLeases leases = TorchLeases.start(dir, false, 2)) {
                byte[] legacy = new byte[TorchHandle.IPC_HANDLE_BYTES];
                byte[] expandableBytes = expandableHandle(1, 2L << 20, 3); // only its block key is made
                TensorLayout layout = TensorLayout.contiguous(DType.UINT8, 1);
                for (int round = 0; round < ROUNDS; round++) {
                    // handles parsed anew each round, as each share's are: their keys are made on first use
                    TorchShare share = share(TorchHandle.parse(legacy), 0, file, 0, layout, true);
                    TorchHandle expandable = TorchHandle.parse(expandableBytes);
                    file.set(0, 1);
                    file.set(1, 1);
                    OpenPhases phases = new OpenPhases();
                    phases.start();
                    TorchStorageKey key = TorchStorageKey.of(share, 0);
                    TorchReader.blockKey(share.handle(), 0);
                    TorchReader.blockKey(expandable, round);
                    OpenPhases.lap(phases, OpenPhases.Phase.KEY);
                    Lease first = leases.acquire(key, file.name(), 0, phases);
                    Lease hit = leases.acquire(key, file.name(), 1, phases);
                    OpenPhases.lap(phases, OpenPhases.Phase.VIEW);
                    hit.release();
                    first.release();
                    phases.byCode();
                }
                // A re-open (a further share of a storage open here) is what a reader repeats most: its path runs
                // until the JIT's optimizing tier takes it.
                TorchShare open = share(TorchHandle.parse(legacy), 0, file, 0, layout, true);
                file.set(0, 1);
                Lease held = leases.acquire(TorchStorageKey.of(open, 0), file.name(), 0, null);
                for (int round = 0; round < REOPEN_ROUNDS; round++) {
                    TorchShare again = share(TorchHandle.parse(legacy), 0, file, 1, layout, true);
                    file.set(1, 1);
                    leases.acquire(TorchStorageKey.of(again, 0), file.name(), 1, null).release();
                    // and a first share of another storage in the same (mapped) file, as a state dict's next tensor
                    TorchShare other = share(TorchHandle.parse(legacy), 1 + round, file, 1, layout, true);
                    file.set(1, 1);
                    leases.acquire(TorchStorageKey.of(other, 0), file.name(), 1, null).release();
                }
                held.release();
            } finally {
                file.delete();
            }
            TorchStorageKey.processStartTime(ProcessHandle.current().pid());
            ownDescriptor(fds);
        } finally {
            removeScratchDirectory(dir);
        }
    }

    /** A private temporary directory for the warm-up's counter files. */
    private static Path scratchDirectory() {
        try {
            return Files.createTempDirectory("cudaipc4j-warm-" + ProcessHandle.current().pid() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("the torch reader's warm-up cannot make a temporary directory", e);
        }
    }

    /** Removes {@link #scratchDirectory()}'s directory, empty by then. */
    private static void removeScratchDirectory(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // an empty directory in the temporary directory; nothing holds it
        }
    }

    /**
     * An open that succeeds, from start to end, on memory of this process's own: one granule of VMM memory exported
     * as a descriptor and shared as an expandable segment of this process is (an {@code 'e'} handle, no event),
     * opened through a scratch reader (own leases, a counter file laid out as torch's in a private temporary
     * directory) and held; then, up to {@value #DRIVER_ROUNDS} times within {@link #ROUNDS_BUDGET_NANOS}, a further
     * share of that storage (a cache hit) and a first share of another storage of the block, each opened and closed;
     * then, the block unmapped, up to {@value #DRIVER_ROUNDS} times within {@link #FIRST_OPEN_BUDGET_NANOS}, a first
     * share of it opened (the producer's pidfd, its descriptor taken, the chunk imported and mapped) and closed
     * (unmapped); now and then, in both loops, the opens the own share cannot make ({@link #otherBranches}); then all
     * of it closed and removed. Every step of a successful open but the driver's IPC opens and the wait on the
     * producer's event then runs the way a share of another process's takes it.
     * Best effort: without VMM, or where {@code pidfd_getfd} or the import is refused here, a share's first open
     * runs the rest for the first time.
     *
     * @return whether every open succeeded
     */
    static boolean successPath(Context context, Stream stream) {
        Set<ShareableHandleType> fd = Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR);
        Path dir = scratchDirectory();
        try {
            TorchCounterFile file = TorchCounterFile.create(dir, 0);
            try (TorchLeases leases = TorchLeases.start(dir, false, 4);
                    VmmAllocation local = VmmAllocation.create(context,
                            VmmAllocation.granularity(context.device(), fd), fd)) {
                int exported = local.exportFileDescriptor();
                try {
                    TorchReader scratch = new TorchReader(context, leases);
                    TorchHandle own = TorchHandle.parse(expandableHandle((int) ProcessHandle.current().pid(),
                            local.bytes(), exported));
                    TensorLayout layout = TensorLayout.contiguous(DType.UINT8, 1);
                    file.set(0, 1);
                    int[] rounds = {0};
                    try (TorchTensorView held = scratch.open(share(own, 0, file, 0, layout, false), stream)) {
                        WarmUpRounds.repeat(() -> {
                            otherBranches(++rounds[0], scratch, own, file, layout, stream);
                            file.set(1, 1);
                            scratch.open(share(own, 0, file, 1, layout, false), stream).close();
                            file.set(2, 1);
                            scratch.open(share(own, 1, file, 2, layout, false), stream).close();
                            return true;
                        }, DRIVER_ROUNDS, ROUNDS_BUDGET_NANOS);
                    }
                    // A first share of a block not mapped yet, opened and closed (so mapped and unmapped): the
                    // producer's pidfd opened, its descriptors taken, the chunks imported and mapped, as for each
                    // new block of a state dict.
                    WarmUpRounds.repeat(() -> {
                        otherBranches(++rounds[0], scratch, own, file, layout, stream);
                        file.set(3, 1);
                        scratch.open(share(own, 0, file, 3, layout, false), stream).close();
                        return true;
                    }, DRIVER_ROUNDS, FIRST_OPEN_BUDGET_NANOS);
                } finally {
                    Libc.close(exported);
                }
            } finally {
                file.delete();
            }
            return true;
        } catch (CudaException | TorchInteropException | IllegalArgumentException | IllegalStateException e) {
            return false; // not warmed: a share's first open runs these steps, and reports a real failure itself
        } finally {
            removeScratchDirectory(dir);
        }
    }

    /**
     * At the first and then every {@value #OTHER_BRANCHES_EVERY}th round of {@link #successPath}, what the own
     * share's opens cannot take, so that the JIT compiles {@link TorchReader#open} having seen both sides of its
     * branches (a side it never saw taken becomes a trap that deoptimizes the compiled open, at a real share's first
     * open): a legacy ({@code 'c'}) share whose IPC handle the driver refuses, a share whose producer's event must be
     * waited on (the driver refuses to open an event handle of no process, so the wait itself still runs only in
     * {@link #driverPath}'s rounds), and an open timed by phases, as the benchmark times them.
     */
    private static void otherBranches(int round, TorchReader scratch, TorchHandle own, TorchCounterFile file,
            TensorLayout layout, Stream stream) {
        if ((round - 1) % OTHER_BRANCHES_EVERY != 0) { // the first round too: a slow driver may allow few
            return;
        }
        file.set(4, 1);
        try {
            scratch.open(share(REFUSED_LEGACY, 0, file, 4, layout, true), stream).close();
        } catch (CudaException refused) {
            // expected: the handle is no process's
        }
        file.set(5, 1);
        try {
            scratch.open(share(own, 0, file, 5, layout, true), stream).close();
        } catch (CudaException refused) {
            // expected: the event handle is no process's
        }
        file.set(6, 1);
        scratch.open(share(own, 0, file, 6, layout, false), stream, new OpenPhases()).close();
    }

    /** {@code pidfd_open}, {@code pidfd_getfd} and {@code close} on a descriptor of this process's own. */
    private static void ownDescriptor(ProducerFds fds) {
        Libc.Result own = LibcFiles.memfdCreate("cudaipc4j-warm");
        if (own.value() < 0) {
            return;
        }
        try {
            int self = (int) ProcessHandle.current().pid();
            ProducerFds.Producer producer = fds.producer(self);
            fds.mapped(producer);
            try {
                fds.producer(self); // the liveness check a later share of a known producer makes
                int[] taken = fds.take(producer, new int[] {own.value()});
                fds.close(taken, taken.length);
            } finally {
                fds.unmapped(producer);
            }
        } catch (TorchInteropException refused) {
            // pidfd_getfd refused here (seccomp, old kernel): an 'e' open reports it for real
        } finally {
            Libc.close(own.value());
        }
    }

    /**
     * The open path's driver side in {@code context} (current), with its own memory, up to {@value #DRIVER_ROUNDS}
     * times within {@link #ROUNDS_BUDGET_NANOS}: an event made, waited on by {@code stream} and destroyed, an empty
     * view made and closed; then the IPC opens' calls on a handle the driver refuses ({@link IpcOpenWarmUp}), once
     * through {@link IpcMemHandle#open} for its refusal's path; then {@link #successPath}, or where that was refused,
     * one granule of this device's VMM memory exported and mapped back as an expandable segment's chunks are
     * ({@link ChunkedVmmMapping}), then released.
     */
    static void driverPath(TorchReader reader, Context context, Stream stream) {
        context.makeCurrent();
        WarmUpRounds.repeat(() -> {
            try (Event e = Event.create(context)) {
                stream.waitEvent(e);
            }
            reader.open(EMPTY, stream).close();
            return true;
        }, DRIVER_ROUNDS, ROUNDS_BUDGET_NANOS);
        IpcOpenWarmUp.run(context);
        try {
            IpcMemHandle.fromBytes(new byte[64]).open(context, true).close(); // the driver refuses
        } catch (CudaException | IllegalStateException | IllegalArgumentException refused) {
            // expected
        }
        load(IpcMappedMemory.class);
        load(TorchInteropException.class);
        load(ReleaseOutcome.class);
        if (!successPath(context, stream)) {
            ChunkedVmmMapping.warmUp(context); // the chunk import alone, which the own share's open makes too
        }
    }

    private static void load(Class<?> c) {
        try {
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
