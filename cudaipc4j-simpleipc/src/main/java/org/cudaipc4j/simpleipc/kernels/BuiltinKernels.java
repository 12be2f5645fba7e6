package org.cudaipc4j.simpleipc.kernels;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaModule;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Kernel;
import org.cudaipc4j.cuda.KernelArg;
import org.cudaipc4j.cuda.PinnedArena;
import org.cudaipc4j.cuda.Stream;

/**
 * The byte kernels cudaipc4j ships as PTX ({@value #PTX_RESOURCE}, built from {@code cudaipc4j-simpleipc/src/main/cuda/kernels.cu}),
 * loaded into one context, with the grid rules for launching them:
 * <ul>
 *   <li>{@value #FILL_BYTES}{@code (u8* dst, u8 value, u64 n)}: simpleIPC's one-byte-per-thread kernel, launched
 *       as the sample does: {@value #SIMPLE_BLOCK} threads per block, active blocks per SM times the SM count;
 *   <li>{@value #FILL_BYTES_VEC16}: same contract with 16-byte stores, {@value #VEC_BLOCK} threads per block, as
 *       many blocks as the bytes need up to one full wave of the device;
 *   <li>{@value #COUNT_MISMATCHES}{@code (const u8* p, u8 expected, u64 n, u64* out)}: counts bytes differing
 *       from {@code expected} and finds the first, launched like the vectorised fill.
 * </ul>
 * Not thread-safe: one owner thread, like the context it uses.
 */
public final class BuiltinKernels implements AutoCloseable {
    public static final String PTX_RESOURCE = "/org/cudaipc4j/simpleipc/kernels/kernels.ptx";
    public static final String FILL_BYTES = "fill_bytes";
    public static final String FILL_BYTES_VEC16 = "fill_bytes_vec16";
    public static final String COUNT_MISMATCHES = "count_mismatches";
    public static final int SIMPLE_BLOCK = 128;
    public static final int VEC_BLOCK = 256;

    /** Which fill kernel to use; named {@code simple} or {@code vec16} on command lines. */
    public enum Fill {
        /** {@value BuiltinKernels#FILL_BYTES}. */
        SIMPLE,
        /** {@value BuiltinKernels#FILL_BYTES_VEC16}. */
        VEC16;

        /** The name options give it: {@code simple}, {@code vec16}. */
        public String optionName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /**
         * The kernel an option names, in any case.
         *
         * @throws IllegalArgumentException "must be vec16 or simple, got '...'" for any other name
         */
        public static Fill parse(String name) {
            for (Fill f : values()) {
                if (f.optionName().equals(name.toLowerCase(java.util.Locale.ROOT))) {
                    return f;
                }
            }
            throw new IllegalArgumentException("must be vec16 or simple, got '" + name + "'");
        }
    }

    private final Context context;
    private final CudaModule module;
    private final Kernel fillBytes;
    private final Kernel fillBytesVec16;
    private final Kernel countMismatches;
    private final int simpleGrid;
    private final int vecWave;
    private final int countWave;
    private DeviceBuffer countScratch;
    private PinnedArena countArena;
    private MemorySegment countResult;

    private BuiltinKernels(Context context, CudaModule module) {
        this.context = context;
        this.module = module;
        this.fillBytes = module.function(FILL_BYTES);
        this.fillBytesVec16 = module.function(FILL_BYTES_VEC16);
        this.countMismatches = module.function(COUNT_MISMATCHES);
        Device device = context.device();
        this.simpleGrid = fillBytes.occupancyGrid(device, SIMPLE_BLOCK);
        this.vecWave = fillBytesVec16.occupancyGrid(device, VEC_BLOCK);
        this.countWave = countMismatches.occupancyGrid(device, VEC_BLOCK);
    }

    /** Loads the shipped PTX into {@code context} and sizes the grids for its device. */
    public static BuiltinKernels load(Context context) {
        CudaModule module = CudaModule.loadResource(context, BuiltinKernels.class, PTX_RESOURCE);
        try {
            return new BuiltinKernels(context, module);
        } catch (RuntimeException e) {
            try {
                module.close();
            } catch (RuntimeException closeFailed) {
                e.addSuppressed(closeFailed);
            }
            throw e;
        }
    }

    public CudaModule module() {
        return module;
    }

    /** The kernel for {@code fill}. */
    public Kernel kernel(Fill fill) {
        return fill == Fill.SIMPLE ? fillBytes : fillBytesVec16;
    }

    /** The grid {@link #fill} uses for {@code n} bytes. */
    public int grid(Fill fill, long n) {
        return fill == Fill.SIMPLE ? simpleGrid : vecGrid(n, vecWave);
    }

    /** Blocks for {@code n} bytes at one 16-byte chunk per thread, capped at one wave and at least one. */
    private static int vecGrid(long n, int wave) {
        long chunks = (n + 15) >>> 4;
        long blocks = (chunks + VEC_BLOCK - 1) / VEC_BLOCK;
        return (int) Math.max(1, Math.min(blocks, wave));
    }

    /** Enqueues filling {@code n} bytes at device address {@code address} with {@code value} on {@code stream}. */
    public void fill(Fill fill, long address, long n, byte value, Stream stream) {
        int block = fill == Fill.SIMPLE ? SIMPLE_BLOCK : VEC_BLOCK;
        kernel(fill).launch(grid(fill, n), block, 0, stream,
                KernelArg.pointer(address), KernelArg.int8(value), KernelArg.int64(n));
    }

    /** Enqueues filling all of {@code memory} with {@code value} on {@code stream}. */
    public void fill(Fill fill, DeviceMemory memory, byte value, Stream stream) {
        fill(fill, memory.address(), memory.bytes(), value, stream);
    }

    /**
     * Enqueues {@value #COUNT_MISMATCHES} on {@code stream}. The caller initialises the two {@code u64} at
     * {@code out}: {@code out[0] = 0}, {@code out[1] = ~0}.
     */
    public void countMismatchesAsync(long address, long n, byte expected, long out, Stream stream) {
        countMismatches.launch(vecGrid(n, countWave), VEC_BLOCK, 0, stream,
                KernelArg.pointer(address), KernelArg.int8(expected), KernelArg.int64(n), KernelArg.pointer(out));
    }

    /**
     * Counts the bytes of {@code [address, address + n)} that differ from {@code expected}, after the work already
     * on {@code stream}, and waits for the answer.
     */
    public MismatchCount countMismatches(long address, long n, byte expected, Stream stream) {
        if (countScratch == null) {
            countScratch = DeviceBuffer.allocate(context, 2 * Long.BYTES);
            countArena = PinnedArena.open(context);
            countResult = countArena.allocate(2 * Long.BYTES, Long.BYTES);
        }
        countScratch.memsetAsync(0, Long.BYTES, (byte) 0, stream);
        countScratch.memsetAsync(Long.BYTES, Long.BYTES, (byte) 0xff, stream);
        countMismatchesAsync(address, n, expected, countScratch.address(), stream);
        countScratch.copyToAsync(0, countResult, stream);
        stream.synchronize();
        long count = countResult.get(JAVA_LONG, 0);
        return new MismatchCount(count, count == 0 ? -1 : countResult.get(JAVA_LONG, Long.BYTES));
    }

    /** Counts the bytes of {@code memory} that differ from {@code expected}; see {@link #countMismatches}. */
    public MismatchCount countMismatches(DeviceMemory memory, byte expected, Stream stream) {
        return countMismatches(memory.address(), memory.bytes(), expected, stream);
    }

    /** Frees the scratch memory, then unloads the module. Idempotent. */
    @Override
    public void close() {
        Closeables.closeAll(countArena, countScratch, module);
    }
}
