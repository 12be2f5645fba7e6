package org.cudaipc4j.interop.torch;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.coord.IdleStrategy;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ipc.PoolBuffer;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.interop.BinaryDescriptors;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;

/**
 * A {@link DeviceBuffer} handed to unmodified torch consumers as torch's own sharing tuple (the 15 arguments of
 * {@code torch.multiprocessing.reductions.rebuild_cuda_tensor}, as vLLM's and sglang's weight loaders receive
 * them), keeping torch's producer contract from Java ({@code docs/interop-guide.md}, "Handing torch its own tuple"):
 * <ul>
 *   <li>the handle is the raw 64-byte {@code cudaIpcMemHandle_t}, which every torch reader takes as a legacy handle
 *       ({@code getIpcDevPtr} in {@code c10/cuda/CUDACachingAllocator.cpp}: exactly 64 bytes is raw);</li>
 *   <li>a counter file laid out and named as torch's ({@link TorchCounterFile#create}), its process count held at 1
 *       here from creation to removal;</li>
 *   <li>{@link #mint} gives every tuple a new slot, set to 1, never reused (a new file after
 *       {@value TorchCounterFile#SLOTS}): torch's consumer decrements it once when the storage dies
 *       ({@code THPStorage_newSharedCuda}'s deleter) or at once on a hit in its {@code shared_cache}
 *       ({@code rebuild_cuda_tensor}, {@code THPStorage_releaseIPCCounter}), both in
 *       {@code torch/csrc/StorageSharing.cpp} and {@code torch/multiprocessing/reductions.py};</li>
 *   <li>the buffer's context is synchronized before each tuple leaves, which is sent with
 *       {@code event_sync_required=False} (what torch's producer sends when it synchronizes instead of recording an
 *       event, {@code CudaIPCSentData}'s constructor in {@code torch/csrc/CudaIPCTypes.cpp});</li>
 *   <li>the buffer is freed only when every slot minted reads 0, by {@link #close()}.</li>
 * </ul>
 * A tuple is the {@code torch} {@link Descriptor} {@link #mint} returns; Python's
 * {@code cudaipc4j.torch_tuple(descriptor)} turns it into the arguments. <b>One tuple, one rebuild</b>: torch's
 * counter records that a release happened, not who released, so a tuple rebuilt twice (by two processes, or twice in
 * one) gives its slot back while a tensor over it lives; mint one per consumer process. A slot that goes below 0
 * shows it, and the buffer is then never freed here. A consumer killed while it holds a tensor never releases its
 * slot: when {@link #mint(TensorLayout, long, long, ProcessHandle)} names the consumer, its exit counts as the
 * release (the driver unmapped its memory when it died).
 *
 * <p>VMM and pool memory have no torch tuple ({@link #of} refuses them, saying why). Owns the buffer from
 * {@link #of} on: do not close it, and keep its {@link org.cudaipc4j.cuda.Context} open until this export is
 * closed (closing the context frees the buffer under the consumers). Thread-safe.
 */
public final class TorchTupleExport implements AutoCloseable {
    /** How long {@link #close()} waits for the consumers to give every slot back. */
    public static final Duration DEFAULT_CLOSE_WAIT = Duration.ofSeconds(10);

    private final Descriptor legacy;
    private final int deviceIndex;
    private final Runnable dataReady;
    private final AutoCloseable memory;
    private final Path directory;
    private final List<TorchCounterFile> files = new ArrayList<>();
    private final List<Minted> minted = new ArrayList<>();
    private final Map<Long, Long> storageSizes = new HashMap<>();
    private int nextSlot = TorchCounterFile.SLOTS;
    private boolean closed;
    /** Where the counter files are written down, for the next export to remove them if this JVM dies first. */
    private TupleCounterRecord record;

    TorchTupleExport(Descriptor legacy, int deviceIndex, Runnable dataReady, AutoCloseable memory, Path directory) {
        if (legacy.kind() != Descriptor.Kind.LEGACY) {
            throw new IllegalArgumentException("a torch tuple needs a legacy export, got " + legacy.kind().code());
        }
        this.legacy = legacy;
        this.deviceIndex = deviceIndex;
        this.dataReady = dataReady;
        this.memory = memory;
        this.directory = directory;
    }

    /**
     * Takes {@code memory} to hand to torch consumers, with its counter files in {@code /dev/shm}.
     *
     * @param memory a {@link DeviceBuffer}; owned by the export from here on (as in {@link #of(DeviceMemory, Path)})
     * @return the export
     * @throws TorchInteropException for any other memory (VMM or pool memory, a mapping), in one line saying why
     */
    public static TorchTupleExport of(DeviceMemory memory) {
        return of(memory, TorchCounterFile.DEFAULT_DIRECTORY);
    }

    /**
     * As {@link #of(DeviceMemory)}, with the counter files in {@code directory} (torch's consumers look in
     * {@code /dev/shm}, through {@code shm_open}).
     *
     * @param memory a {@link DeviceBuffer}; owned by the export from here on (a refused one stays the caller's; one
     *               whose handle cannot be exported is closed before the exception leaves)
     * @param directory the directory of the counter files
     * @return the export
     * @throws TorchInteropException for any other memory (VMM or pool memory, a mapping), in one line saying why
     */
    public static TorchTupleExport of(DeviceMemory memory, Path directory) {
        Optional<String> refused = refusal(memory.getClass());
        if (refused.isPresent()) {
            throw new TorchInteropException(refused.get());
        }
        DeviceBuffer buffer = (DeviceBuffer) memory;
        Descriptor legacy;
        try (SharedMemoryExport export = SharedMemoryExport.of(buffer)) {
            legacy = BinaryDescriptors.fromBinary(export.descriptor());
        } catch (RuntimeException e) {
            // Taken but not exported: the buffer has no other owner left, so it is freed here.
            Closing.closeAfter(buffer, e);
            throw e;
        }
        return new TorchTupleExport(legacy, buffer.context().device().ordinal(), buffer.context()::synchronize,
                buffer, directory);
    }

    /**
     * {@return why memory of {@code type} cannot be handed to torch as its own tuple, empty for a {@link DeviceBuffer}}
     *
     * @param type the memory's class
     */
    static Optional<String> refusal(Class<?> type) {
        if (DeviceBuffer.class.isAssignableFrom(type)) {
            return Optional.empty();
        }
        if (VmmAllocation.class.isAssignableFrom(type)) {
            return Optional.of("a VMM allocation has no torch tuple: torch would take it for an expandable segment,"
                    + " whose handle makes the consumer pidfd_getfd this JVM's file descriptors (ptrace rights over"
                    + " the JVM) in a layout torch changed in version 3; send its descriptor and open it with"
                    + " cudaipc4j.open(descriptor)");
        }
        if (PoolBuffer.class.isAssignableFrom(type)) {
            return Optional.of("a memory-pool allocation has no torch tuple: torch's tuple carries a"
                    + " legacy IPC handle, which pool memory cannot give; send its descriptor and open it with"
                    + " cudaipc4j.open(descriptor)");
        }
        return Optional.of(type.getSimpleName() + " has no torch tuple: only a DeviceBuffer (cuMemAlloc) has one");
    }

    /**
     * A tuple of the whole buffer as one storage: {@link #mint(TensorLayout, long, long)} at offset 0.
     *
     * @param tensor the tensor over the buffer (dtype, shape, strides, element offset)
     * @return the tuple as a {@code torch} descriptor, with a new slot
     */
    public Descriptor mint(TensorLayout tensor) {
        return mint(tensor, 0, legacy.bytes(), null);
    }

    /**
     * A tuple of a tensor over the storage {@code [storageOffsetBytes, storageOffsetBytes + storageBytes)} of the
     * buffer, with a new slot. Synchronizes the buffer's context first: work queued there before this call is
     * complete when the consumer reads.
     *
     * @param tensor the tensor over the storage (element offset from the storage's start)
     * @param storageOffsetBytes where the storage starts in the buffer, a multiple of the element size
     * @param storageBytes the storage's size, at least 1 byte
     * @return the tuple as a {@code torch} descriptor
     */
    public Descriptor mint(TensorLayout tensor, long storageOffsetBytes, long storageBytes) {
        return mint(tensor, storageOffsetBytes, storageBytes, null);
    }

    /**
     * As {@link #mint(TensorLayout, long, long)} for the consumer {@code consumer}: once it has exited, its slot
     * counts as given back even if it was not (a consumer killed while it held the tensor). Give the process that
     * rebuilds the tuple, never one that passes it on.
     *
     * @param tensor the tensor over the storage
     * @param storageOffsetBytes where the storage starts in the buffer
     * @param storageBytes the storage's size
     * @param consumer the process that rebuilds the tuple, or null
     * @return the tuple as a {@code torch} descriptor
     * @throws IllegalArgumentException for a storage outside the buffer, an empty storage (torch's reader never
     *                                  gives its slot back), a misaligned offset, a tensor beyond its storage, or a
     *                                  storage offset minted before with another size (torch's reader keys its
     *                                  cache by handle and storage offset, and would reuse the first size)
     * @throws IllegalStateException once closed
     */
    public synchronized Descriptor mint(TensorLayout tensor, long storageOffsetBytes, long storageBytes,
            ProcessHandle consumer) {
        if (closed) {
            throw new IllegalStateException("the torch tuple export is closed");
        }
        checkStorage(tensor, storageOffsetBytes, storageBytes);
        Long earlier = storageSizes.get(storageOffsetBytes);
        if (earlier != null && earlier != storageBytes) {
            throw new IllegalArgumentException("a storage at offset " + storageOffsetBytes + " was minted with "
                    + earlier + " bytes: torch's reader keys its cache by (handle, storage offset) and would reuse"
                    + " that size; give every storage offset one size");
        }
        dataReady.run();
        if (nextSlot == TorchCounterFile.SLOTS) {
            if (record == null) {
                record = TupleCounterRecord.create(directory);
            }
            TorchCounterFile made = TorchCounterFile.create(directory, files.size());
            files.add(made);
            record.add(made.name());
            nextSlot = 0;
        }
        TorchCounterFile file = files.getLast();
        int slot = nextSlot;
        // The tuple first: a slot is held only once there is a tuple to hand out that gives it back.
        TorchShare share = new TorchShare(deviceIndex, TorchHandle.parse(legacy.ipcHandle()), storageBytes,
                storageOffsetBytes, file.name(), slot, null, false, tensor);
        Descriptor descriptor = share.toDescriptor(legacy.deviceUuid(), legacy.exporter());
        nextSlot++;
        file.set(slot, 1);
        minted.add(new Minted(file, slot, consumer));
        storageSizes.put(storageOffsetBytes, storageBytes);
        return descriptor;
    }

    private void checkStorage(TensorLayout tensor, long offset, long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("a torch tuple needs a storage of at least 1 byte, got " + bytes
                    + ": torch's reader opens nothing for an empty storage and never gives its slot back");
        }
        if (offset < 0 || offset > legacy.bytes() || bytes > legacy.bytes() - offset) {
            throw new IllegalArgumentException("a storage of " + bytes + " bytes at offset " + offset + " does not fit"
                    + " the buffer's " + legacy.bytes() + " bytes");
        }
        if (tensor.extentBytes() > bytes) {
            throw new IllegalArgumentException("tensor " + tensor + " reaches " + tensor.extentBytes() + " bytes,"
                    + " beyond its storage of " + bytes);
        }
        int element = tensor.dtype().elementSize();
        if (offset % element != 0) {
            throw new IllegalArgumentException("storage offset " + offset + " is not a multiple of the "
                    + tensor.dtype() + " element size " + element);
        }
    }

    /** {@return the device's UUID, where a consumer finds the device among its own} */
    public UUID deviceUuid() {
        return legacy.deviceUuid();
    }

    /** {@return how many tuples are minted (every slot handed out)} */
    public synchronized int minted() {
        return minted.size();
    }

    /**
     * {@return how many tuples still hold their buffer: slots above 0 whose consumer, when named, lives}
     */
    public synchronized int held() {
        if (closed) {
            return 0;
        }
        int n = 0;
        for (Minted m : minted) {
            if (m.holds()) {
                n++;
            }
        }
        return n;
    }

    /** {@return true once closed} */
    public synchronized boolean isClosed() {
        return closed;
    }

    /** {@return the counter files' paths, in the order made} */
    public synchronized List<Path> counterFiles() {
        return files.stream().map(TorchCounterFile::path).toList();
    }

    /**
     * Waits until no tuple {@linkplain #held() holds} the buffer, polling the counter files (torch's consumer
     * signals nothing else).
     *
     * @param timeout how long to wait at most
     * @return true when none holds it
     * @throws InterruptedException when interrupted
     */
    public boolean awaitReleased(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        IdleStrategy idle = IdleStrategy.parking(Duration.ofMillis(1), Duration.ofMillis(50));
        while (held() > 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            idle.idleInterruptibly();
        }
        return true;
    }

    /** {@link #close(Duration)} with {@link #DEFAULT_CLOSE_WAIT}. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_WAIT);
    }

    /**
     * Frees the buffer and removes the counter files once no tuple holds the buffer, waiting up to {@code wait}.
     * Never frees memory a consumer may still map:
     * <ul>
     *   <li>still held when the wait ends: nothing is freed or removed, the export stays open, and the exception
     *       names the slots; close again later;</li>
     *   <li>a slot below 0 (a tuple rebuilt twice; a tensor over it may live): the counter files are removed, the
     *       buffer is not freed (its context frees it when closed), and the exception says so.</li>
     * </ul>
     * Idempotent once it succeeded or gave the buffer up.
     *
     * @param wait how long to wait for the consumers
     * @throws TorchInteropException in the two cases above
     */
    public void close(Duration wait) {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        boolean released;
        try {
            released = awaitReleased(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            released = false;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            if (!released && held() > 0) {
                throw new TorchInteropException(held() + " of " + minted.size() + " torch tuples still hold the"
                        + " buffer after " + wait.toMillis() + " ms (" + describe(m -> m.holds()) + "): nothing freed;"
                        + " close again once the consumers dropped their tensors");
            }
            closed = true;
            String overReleased = describe(m -> m.value() < 0);
            RuntimeException failure = null;
            for (TorchCounterFile f : files) {
                try {
                    f.delete();
                } catch (RuntimeException e) {
                    failure = Closing.firstOf(failure, e);
                }
            }
            if (record != null && failure == null) {
                try {
                    record.delete();
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (!overReleased.isEmpty()) {
                failure = Closing.firstOf(failure, new TorchInteropException("a torch tuple was given back more"
                        + " than once (" + overReleased + "): it was rebuilt twice, and a tensor over it may still"
                        + " live; the buffer is not freed here (its context frees it when closed)"));
            } else {
                try {
                    memory.close();
                } catch (Exception e) {
                    failure = Closing.firstOf(failure, e instanceof RuntimeException r ? r
                            : new TorchInteropException("freeing the buffer: " + e, e));
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    private String describe(java.util.function.Predicate<Minted> which) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        int more = 0;
        for (Minted m : minted) {
            if (which.test(m)) {
                if (shown++ < 8) {
                    b.append(b.isEmpty() ? "" : ", ").append("slot ").append(m.slot).append(" of ")
                            .append(m.file.name()).append(" = ").append(m.value());
                } else {
                    more++;
                }
            }
        }
        return more == 0 ? b.toString() : b + " and " + more + " more";
    }

    @Override
    public String toString() {
        return "torch tuple export of " + legacy.bytes() + " bytes on " + legacy.deviceUuid() + " (" + minted()
                + " minted" + (isClosed() ? ", closed)" : ")");
    }

    /** One tuple handed out: its slot, and the consumer whose exit counts as the release, if named. */
    private record Minted(TorchCounterFile file, int slot, ProcessHandle consumer) {
        long value() {
            return file.slot(slot);
        }

        boolean holds() {
            return value() > 0 && (consumer == null || consumer.isAlive());
        }
    }
}
