package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.Test;

/**
 * Arguments of several sizes and alignments, a struct passed by value and a 16-byte-aligned vector among them,
 * reach the kernel (test PTX {@code echo_args}, which writes each back) with their values intact.
 */
@GpuTest
class KernelArgGpuTest {
    /** {@code struct Triple { char c; double d; int i; }}: 24 bytes, 8-aligned, with padding. */
    private static final StructLayout TRIPLE = MemoryLayout.structLayout(JAVA_BYTE.withName("c"),
            MemoryLayout.paddingLayout(7), JAVA_DOUBLE.withName("d"), JAVA_INT.withName("i"),
            MemoryLayout.paddingLayout(4));
    /** {@code float4}: 16 bytes, 16-aligned. */
    private static final StructLayout FLOAT4 = MemoryLayout.structLayout(JAVA_FLOAT.withName("x"),
            JAVA_FLOAT.withName("y"), JAVA_FLOAT.withName("z"), JAVA_FLOAT.withName("w")).withByteAlignment(16);

    @Test
    void everyArgumentArrivesIntact() {
        try (Context ctx = Context.retainPrimary(Device.get(0)); Arena arena = Arena.ofConfined()) {
            Stream stream = Stream.create(ctx, true);
            CudaModule module = CudaModule.loadResource(ctx, KernelArgGpuTest.class, "/org/cudaipc4j/cuda/echo_args.ptx");
            DeviceBuffer out = DeviceBuffer.allocate(ctx, 64);
            out.memset((byte) 0);
            MemorySegment triple = arena.allocate(TRIPLE);
            triple.set(JAVA_BYTE, 0, (byte) -7);
            triple.set(JAVA_DOUBLE, 8, Math.PI);
            triple.set(JAVA_INT, 16, 0x12345678);
            MemorySegment vector = arena.allocate(FLOAT4);
            for (int k = 0; k < 4; k++) {
                vector.setAtIndex(JAVA_FLOAT, k, 1.5f * (k + 1));
            }
            module.function("echo_args").launch(1, 32, 0, stream, KernelArg.pointer(out), KernelArg.int8((byte) 0x5c),
                    KernelArg.int16((short) -12345), KernelArg.of(TRIPLE, triple), KernelArg.of(FLOAT4, vector),
                    KernelArg.float64(-2.25), KernelArg.int64(0x0102030405060708L));
            stream.synchronize();
            MemorySegment got = MemorySegment.ofArray(out.read(0, 64));
            assertEquals((byte) 0x5c, got.get(JAVA_BYTE, 0));
            assertEquals((short) -12345, got.get(JAVA_SHORT.withByteAlignment(1), 2));
            assertEquals((byte) -7, got.get(JAVA_BYTE, 8));
            assertEquals(Math.PI, got.get(JAVA_DOUBLE.withByteAlignment(1), 16));
            assertEquals(0x12345678, got.get(JAVA_INT.withByteAlignment(1), 24));
            for (int k = 0; k < 4; k++) {
                assertEquals(1.5f * (k + 1), got.get(JAVA_FLOAT.withByteAlignment(1), 32 + 4L * k));
            }
            assertEquals(-2.25, got.get(JAVA_DOUBLE.withByteAlignment(1), 48));
            assertEquals(0x0102030405060708L, got.get(JAVA_LONG.withByteAlignment(1), 56));
        }
    }
}
