package org.cudaipc4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.PinnedArena;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.interop.BinaryDescriptors;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.TensorLayout;

/**
 * The Java trainer's state dict: one device allocation per tensor, exported by one of the library's paths, and
 * rewritten in place each round from a host pattern that depends on the seed, the round and the tensor. A tensor's
 * pattern is a tile of random words (the whole tensor, or its first {@link #TILE} bytes), copied to the device and
 * then doubled there by device-to-device copies until it fills the tensor; the trainer announces the
 * {@link WeightSum} of the result, computed from the tile alone. Owns its allocations and its pinned tiles.
 */
final class ExportedStateDict implements AutoCloseable {
    /** The most random bytes made on the host per tensor and round; larger tensors repeat them. */
    static final long TILE = 1L << 20;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** How the tensors travel: the library's export paths. */
    enum ExportPath {
        /** One pool ({@code cuMemPoolCreate}), the pool's fd and each tensor's pointer export. */
        POOL("pool"),
        /** One VMM allocation per tensor, whole granules, and its fd. */
        VMM("vmm"),
        /** One {@code cuMemAlloc} per tensor and its legacy IPC handle (no fd). */
        LEGACY("legacy");

        private final String code;

        ExportPath(String code) {
            this.code = code;
        }

        String code() {
            return code;
        }

        static ExportPath parse(String s) {
            for (ExportPath p : values()) {
                if (p.code.equals(s)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("the export path is pool, vmm or legacy, got '" + s + "'");
        }
    }

    /** One tensor: its name, dtype, shape and size in bytes (a multiple of 8). */
    record Spec(String name, DType dtype, long[] shape, long bytes) {}

    /** One tensor's export: the descriptor to send and the export that owns the fds sent with it. */
    record Exported(Descriptor descriptor, SharedMemoryExport export) {}

    private final List<Spec> specs;
    private final Stream stream;
    private final List<DeviceMemory> tensors = new ArrayList<>();
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final MemorySegment tiles;
    private final long[] tileAt;

    private ExportedStateDict(Context ctx, Stream stream, ExportPath path, List<Spec> specs) {
        this.specs = List.copyOf(specs);
        this.stream = stream;
        try {
            MemoryPool pool = null;
            if (path == ExportPath.POOL) {
                pool = MemoryPool.create(ctx, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0);
                owned.add(pool); // closing the pool frees its buffers
            }
            tileAt = new long[specs.size()];
            long tileBytes = 0;
            for (int i = 0; i < specs.size(); i++) {
                long bytes = specs.get(i).bytes();
                DeviceMemory m = switch (path) {
                    case POOL -> pool.allocate(bytes, stream);
                    case VMM -> VmmAllocation.create(ctx, bytes, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
                    case LEGACY -> DeviceBuffer.allocate(ctx, bytes);
                };
                tensors.add(m);
                if (path != ExportPath.POOL) {
                    owned.add((AutoCloseable) m);
                }
                tileAt[i] = tileBytes;
                tileBytes += Math.min(bytes, TILE);
            }
            PinnedArena pinned = PinnedArena.open(ctx);
            owned.add(pinned);
            tiles = pinned.allocate(tileBytes, 4096);
        } catch (RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    /** Allocates {@code specs} on {@code ctx}'s device for export by {@code path}; the stream orders the updates. */
    static ExportedStateDict allocate(Context ctx, Stream stream, ExportPath path, List<Spec> specs) {
        return new ExportedStateDict(ctx, stream, path, specs);
    }

    /**
     * {@code count} tensors of {@code dict}, with its sizes ({@link StateDict#sizes}, as {@code weight_sync.py}'s
     * {@code sizes}) and its dtypes in turn; two-dimensional where the elements come in rows of 256.
     */
    static List<Spec> specs(int count, StateDict dict) {
        long[] sizes = dict.sizes(count);
        List<DType> dtypes = dict.dtypes();
        List<Spec> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long bytes = sizes[i];
            DType dtype = dtypes.get(i % dtypes.size());
            long n = bytes / dtype.elementSize();
            long[] shape = n % 256 == 0 ? new long[] {n / 256, 256} : new long[] {n};
            out.add(new Spec(String.format("layer%03d.%s", i, dtype.stableName()), dtype, shape, bytes));
        }
        return out;
    }

    /** {@return the tensors' specs, in order} */
    List<Spec> specs() {
        return specs;
    }

    /**
     * Exports tensor {@code i}: its descriptor with the holder table {@code holders} (importers sign in there under
     * the export id) and the tensor's dtype and shape, and the export holding the fds to send beside it.
     */
    Exported export(int i, String holders) {
        SharedMemoryExport export = SharedMemoryExport.of(tensors.get(i));
        try {
            Spec s = specs.get(i);
            Descriptor d = BinaryDescriptors.fromBinary(export.descriptor()).withHolders(holders)
                    .withTensor(TensorLayout.contiguous(s.dtype(), s.shape()));
            return new Exported(d, export);
        } catch (RuntimeException e) {
            export.close();
            throw e;
        }
    }

    /** {@return the export id of {@code e}, the key its importers hold} */
    static long exportId(Exported e) {
        return e.descriptor().exporter().exportId();
    }

    /**
     * Rewrites every tensor for round {@code round} and waits for the device: when this returns, a reader sees the
     * new bytes.
     *
     * @return each tensor's {@link WeightSum}, in order
     */
    long[] update(long seed, int round) {
        long[] sums = new long[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            long bytes = specs.get(i).bytes();
            MemorySegment tile = tiles.asSlice(tileAt[i], Math.min(bytes, TILE));
            fill(tile, seed, round, i);
            DeviceMemory t = tensors.get(i);
            t.copyFromAsync(0, tile, stream);
            for (long filled = tile.byteSize(); filled < bytes; ) {
                long n = Math.min(filled, bytes - filled);
                t.copyFromAsync(filled, t, 0, n, stream);
                filled += n;
            }
            sums[i] = WeightSum.ofRepeated(tile, bytes);
        }
        stream.synchronize();
        return sums;
    }

    /** The tile of tensor {@code tensor} in round {@code round}: random words from a seed of all three. */
    static void fill(MemorySegment tile, long seed, int round, int tensor) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E37_79B9_7F4A_7C15L + round * 0x1_0000_0001L + tensor);
        for (long off = 0; off < tile.byteSize(); off += 8) {
            tile.set(WORD, off, r.nextLong());
        }
    }

    /** Frees the tensors and the tiles; importers must have released them ({@code ExportHolders#awaitReleased}). */
    @Override
    public void close() {
        Closeables.closeAll(owned.reversed().toArray(AutoCloseable[]::new));
        owned.clear();
    }

    private void closeQuietly(RuntimeException e) {
        try {
            close();
        } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
        }
    }
}
