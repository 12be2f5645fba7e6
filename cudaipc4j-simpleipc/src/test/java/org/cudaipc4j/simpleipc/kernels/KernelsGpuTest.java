package org.cudaipc4j.simpleipc.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaError;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.CudaModule;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.FunctionAttribute;
import org.cudaipc4j.cuda.Kernel;
import org.cudaipc4j.cuda.KernelArg;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The shipped kernels, checked byte by byte at odd sizes and every pointer alignment, guard bytes included. */
@GpuTest
class KernelsGpuTest {
    /** cuda.h's {@code CU_DEVICE_ATTRIBUTE_*} of the limits that bound occupancy. */
    private static final int MAX_THREADS_PER_MULTIPROCESSOR = 39;
    private static final int MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
    private static final int MAX_BLOCKS_PER_MULTIPROCESSOR = 106;
    private static final long[] SIZES = {1, 3, 15, 16, 17, 4095, (1 << 20) + 7};
    private static final long MAX = (1 << 20) + 7;
    /** Bytes before and after the filled range that must stay untouched. */
    private static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte) 0xa5;

    private static Context ctx;
    private static Stream stream;
    private static BuiltinKernels kernels;
    private static DeviceBuffer buf;

    @BeforeAll
    static void open() {
        ctx = Context.retainPrimary(Device.get(0));
        stream = Stream.create(ctx, true);
        kernels = BuiltinKernels.load(ctx);
        buf = DeviceBuffer.allocate(ctx, GUARD + 16 + MAX + GUARD);
    }

    @AfterAll
    static void close() {
        Closeables.closeAll(buf, kernels, stream, ctx);
    }

    /** Fills n bytes at GUARD + offset with the kernel, then checks the range and the guard bytes around it. */
    private static void fillAndCheck(Fill fill, long n, int offset, byte value, Integer gridOverride) {
        long span = GUARD + 16 + n + GUARD;
        buf.memsetAsync(0, span, GUARD_BYTE, stream);
        long at = buf.address() + GUARD + offset;
        if (gridOverride == null) {
            kernels.fill(fill, at, n, value, stream);
        } else {
            kernels.kernel(fill).launch(gridOverride, 32, 0, stream,
                    KernelArg.pointer(at), KernelArg.int8(value), KernelArg.int64(n));
        }
        stream.synchronize();
        byte[] got = buf.read(0, (int) span);
        for (int i = 0; i < got.length; i++) {
            boolean inside = i >= GUARD + offset && i < GUARD + offset + n;
            byte want = inside ? value : GUARD_BYTE;
            if (got[i] != want) {
                throw new AssertionError(fill + " n=" + n + " offset=" + offset + ": byte " + (i - GUARD - offset)
                        + " relative to the start is " + got[i] + ", want " + want);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Fill.class)
    void fillWritesExactlyTheRangeAtEverySizeAndAlignment(Fill fill) {
        assertTrue(buf.address() % 16 == 0, "cuMemAlloc returns aligned memory");
        for (long n : SIZES) {
            for (int offset = 0; offset < 16; offset++) {
                fillAndCheck(fill, n, offset, (byte) (0x30 + offset), null);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Fill.class)
    void fillIsCorrectWithATinyGridAndHighByteValues(Fill fill) {
        for (int offset : new int[] {0, 1, 7, 15}) {
            fillAndCheck(fill, 4095, offset, (byte) 0xff, 1);
            fillAndCheck(fill, 70_001, offset, (byte) 0x80, 3);
        }
    }

    /**
     * Past 2 GiB the one-byte kernel leaves its 32-bit indices for 64-bit ones: a fill of 2^31 bytes (the last size
     * of the 32-bit loop) and one of 2^31 + 4097 bytes each write exactly their range.
     */
    @ParameterizedTest
    @EnumSource(Fill.class)
    void fillsOnBothSidesOfTheTwoGibibyteLimitWriteExactlyTheirRange(Fill fill) {
        long limit = 1L << 31;
        long n = limit + 4097;
        try (DeviceBuffer big = DeviceBuffer.allocate(ctx, n + GUARD)) {
            big.memsetAsync(0, n + GUARD, GUARD_BYTE, stream);
            kernels.fill(fill, big.address(), n, (byte) 0x11, stream);
            assertEquals(0, kernels.countMismatches(big.address(), n, (byte) 0x11, stream).count());
            assertEquals(0, kernels.countMismatches(big.address() + n, GUARD, GUARD_BYTE, stream).count());
            kernels.fill(fill, big.address(), limit, (byte) 0x22, stream);
            assertEquals(0, kernels.countMismatches(big.address(), limit, (byte) 0x22, stream).count());
            assertEquals(0, kernels.countMismatches(big.address() + limit, n - limit, (byte) 0x11, stream).count());
        }
    }

    @ParameterizedTest
    @EnumSource(Fill.class)
    void zeroBytesWritesNothing(Fill fill) {
        buf.memsetAsync(0, 256, GUARD_BYTE, stream);
        kernels.kernel(fill).launch(4, 32, 0, stream,
                KernelArg.pointer(buf.address() + GUARD + 3), KernelArg.int8((byte) 1), KernelArg.int64(0));
        stream.synchronize();
        for (byte b : buf.read(0, 256)) {
            assertEquals(GUARD_BYTE, b);
        }
    }

    @Test
    void countMismatchesFindsCountAndFirstOffsetAtEveryAlignment() {
        for (long n : SIZES) {
            for (int offset = 0; offset < 16; offset++) {
                long at = buf.address() + GUARD + offset;
                buf.memsetAsync(0, GUARD + 16 + n + GUARD, (byte) 0x11, stream);
                // guard bytes differ from expected: a count that strays outside the range would see them
                buf.memsetAsync(0, GUARD + offset, (byte) 0x99, stream);
                buf.memsetAsync(GUARD + offset + n, GUARD, (byte) 0x99, stream);
                buf.memsetAsync(GUARD + offset, n, (byte) 0x77, stream);
                assertEquals(new MismatchCount(0, -1), kernels.countMismatches(at, n, (byte) 0x77, stream),
                        "clean n=" + n + " offset=" + offset);
                buf.memsetAsync(GUARD + offset + n - 1, 1, (byte) 0x78, stream);
                assertEquals(new MismatchCount(1, n - 1), kernels.countMismatches(at, n, (byte) 0x77, stream),
                        "last byte bad, n=" + n + " offset=" + offset);
                buf.memsetAsync(GUARD + offset + n / 2, 1, (byte) 0x00, stream);
                buf.memsetAsync(GUARD + offset, 1, (byte) 0xf7, stream);
                long bad = n == 1 ? 1 : n / 2 == n - 1 || n / 2 == 0 ? 2 : 3;
                assertEquals(new MismatchCount(bad, 0), kernels.countMismatches(at, n, (byte) 0x77, stream),
                        "first, middle and last bad, n=" + n + " offset=" + offset);
            }
        }
    }

    @Test
    void countMismatchesCountsEveryByteOfAWrongBuffer() {
        long n = MAX;
        buf.memsetAsync(0, buf.bytes(), (byte) 0x42, stream);
        assertEquals(new MismatchCount(n, 0), kernels.countMismatches(buf.address() + 5, n, (byte) 0x43, stream));
        // bytes differing in a single bit, in every lane of a 16-byte vector
        for (int lane = 0; lane < 16; lane++) {
            buf.memsetAsync(0, buf.bytes(), (byte) 0x42, stream);
            buf.memsetAsync(4096 + lane, 1, (byte) 0x40, stream);
            assertEquals(new MismatchCount(1, 4096 + lane),
                    kernels.countMismatches(buf.address(), n, (byte) 0x42, stream), "lane " + lane);
        }
    }

    /** Synchronous memset and copies are complete on return, so a non-blocking stream sees their result. */
    @Test
    void synchronousOperationsAreVisibleToANonBlockingStream() {
        long n = 256L << 20;
        try (DeviceBuffer big = DeviceBuffer.allocate(ctx, n); DeviceBuffer copy = DeviceBuffer.allocate(ctx, n)) {
            for (int round = 0; round < 4; round++) {
                byte value = (byte) (0x3c + round);
                big.memset(value);
                assertEquals(new MismatchCount(0, -1), kernels.countMismatches(big, value, stream), "memset " + round);
                copy.copyFrom(0, big, 0, n);
                assertEquals(new MismatchCount(0, -1), kernels.countMismatches(copy, value, stream), "copy " + round);
            }
            byte[] host = new byte[16 << 20];
            java.util.Arrays.fill(host, (byte) 0x6e);
            big.copyFrom(0, host, 0, host.length);
            assertEquals(new MismatchCount(0, -1),
                    kernels.countMismatches(big.address(), host.length, (byte) 0x6e, stream), "host copy");
        }
    }

    @Test
    void kernelsReportOccupancyAndAttributes() {
        Device device = ctx.device();
        Kernel simple = kernels.kernel(Fill.SIMPLE);
        Kernel vec = kernels.kernel(Fill.VEC16);
        // Small kernels are limited by resident threads and blocks per multiprocessor, not by registers: what the
        // device's limits allow is the expected occupancy, computed here from them without the driver's calculator.
        int simplePerSm = residentBlocks(device, simple, BuiltinKernels.SIMPLE_BLOCK);
        int vecPerSm = residentBlocks(device, vec, BuiltinKernels.VEC_BLOCK);
        int sms = device.attribute(Device.ATTRIBUTE_MULTIPROCESSOR_COUNT);
        assertEquals(simplePerSm, simple.maxActiveBlocksPerMultiprocessor(BuiltinKernels.SIMPLE_BLOCK, 0));
        assertEquals(simplePerSm * sms, simple.occupancyGrid(device, BuiltinKernels.SIMPLE_BLOCK));
        assertEquals(simplePerSm * sms, kernels.grid(Fill.SIMPLE, 1), "the simple fill runs one full wave");
        // The vectorised fill: one 16-byte chunk per thread, at least one block, at most one wave.
        assertEquals(1, kernels.grid(Fill.VEC16, 1));
        assertEquals(1, kernels.grid(Fill.VEC16, 16L * BuiltinKernels.VEC_BLOCK));
        assertEquals(2, kernels.grid(Fill.VEC16, 16L * BuiltinKernels.VEC_BLOCK + 1));
        assertEquals(vecPerSm * sms, kernels.grid(Fill.VEC16, 1L << 40), "capped at one wave");
        assertTrue(simple.attribute(FunctionAttribute.MAX_THREADS_PER_BLOCK) >= BuiltinKernels.SIMPLE_BLOCK);
        assertTrue(simple.attribute(FunctionAttribute.NUM_REGS) > 0);
        CudaException e = assertThrows(CudaException.class, () -> kernels.module().function("no_such_kernel"));
        assertEquals(CudaError.NOT_FOUND, e.error(), e.getMessage());
    }

    /**
     * Blocks of {@code block} threads resident on one multiprocessor by the thread and block limits; fails when the
     * kernel's registers would limit it instead (then this reckoning no longer applies).
     */
    private static int residentBlocks(Device device, Kernel kernel, int block) {
        int byThreads = device.attribute(MAX_THREADS_PER_MULTIPROCESSOR) / block;
        int blocks = Math.min(byThreads, device.attribute(MAX_BLOCKS_PER_MULTIPROCESSOR));
        // Registers are given out per thread in multiples of 8 (per warp in multiples of 256).
        int regs = (kernel.attribute(FunctionAttribute.NUM_REGS) + 7) / 8 * 8;
        assertTrue((long) regs * block * blocks <= device.attribute(MAX_REGISTERS_PER_MULTIPROCESSOR),
                kernel.name() + " uses " + regs + " registers a thread: registers limit its occupancy");
        return blocks;
    }

    @Test
    void ptxTextLoadsDirectly() {
        String ptx = """
                .version 7.0
                .target sm_75
                .address_size 64

                .visible .entry store_word(
                	.param .u64 store_word_param_0,
                	.param .u32 store_word_param_1
                )
                {
                	.reg .b32 %r<2>;
                	.reg .b64 %rd<3>;
                	ld.param.u64 %rd1, [store_word_param_0];
                	ld.param.u32 %r1, [store_word_param_1];
                	cvta.to.global.u64 %rd2, %rd1;
                	st.global.u32 [%rd2], %r1;
                	ret;
                }
                """;
        try (CudaModule m = CudaModule.loadPtx(ctx, ptx); DeviceBuffer word = DeviceBuffer.allocate(ctx, 4)) {
            word.memset((byte) 0);
            m.function("store_word").launch(1, 1, 0, stream, KernelArg.pointer(word.address()),
                    KernelArg.int32(0x1234abcd));
            stream.synchronize();
            byte[] back = word.read(0, 4);
            assertEquals(0x1234abcd, java.nio.ByteBuffer.wrap(back).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(),
                    "the kernel loaded from PTX text ran and stored its argument");
        }
    }
}
