package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** dtypes by their stable names, and the bytes a view reaches (strides, offsets, stride 0, empty). */
class TensorLayoutTest {
    @Test
    void everyDtypeHasItsStableNameAndSize() {
        assertEquals(19, DType.values().length);
        Set<String> names = Arrays.stream(DType.values()).map(DType::stableName).collect(Collectors.toSet());
        assertEquals(19, names.size());
        for (DType d : DType.values()) {
            assertEquals(d, DType.of(d.stableName()));
            assertEquals(d, DType.of("torch." + d.stableName()));
        }
        assertEquals(1, DType.BOOL.elementSize());
        assertEquals(2, DType.BFLOAT16.elementSize());
        assertEquals(1, DType.FLOAT8_E5M2FNUZ.elementSize());
        assertEquals(16, DType.COMPLEX128.elementSize());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DType.of("float4"));
        assertTrue(e.getMessage().startsWith("unknown dtype 'float4' (known: bool, uint8"), e.getMessage());
    }

    @Test
    void extentCoversStridedViewsOffsetsBroadcastsAndEmptyTensors() {
        assertEquals(4 << 20, TensorLayout.contiguous(DType.FLOAT32, 1024, 1024).extentBytes());
        // a.view(1024,1024)[:,3:7] of float32: offset 3, strides (1024, 1)
        TensorLayout view = TensorLayout.of(DType.FLOAT32, new long[] {1024, 4}, new long[] {1024, 1}, 3);
        assertEquals((3 + 1023 * 1024 + 3 + 1) * 4L, view.extentBytes());
        TensorLayout expand = TensorLayout.of(DType.FLOAT32, new long[] {8, 16}, new long[] {0, 1}, 0);
        assertEquals(64, expand.extentBytes(), "stride 0 reaches one row");
        assertEquals(0, TensorLayout.contiguous(DType.FLOAT32, 0, 5).extentBytes());
        assertEquals(0, TensorLayout.contiguous(DType.FLOAT32, 0, 5).elementCount());
        assertEquals(1, TensorLayout.contiguous(DType.INT64).elementCount(), "a scalar");
        assertThrows(IllegalArgumentException.class,
                () -> TensorLayout.of(DType.FLOAT32, new long[] {-1}, new long[] {1}, 0));
        assertThrows(IllegalArgumentException.class,
                () -> TensorLayout.of(DType.FLOAT32, new long[] {1, 2}, new long[] {1}, 0));
    }

    @Test
    void aTensorBeyondALongIsRefusedWhenMadeNotWhenUsed() {
        long big = 1L << 40;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorLayout.of(DType.FLOAT32, new long[] {big, big}, new long[] {big, 1}, 0));
        assertEquals("tensor of shape [" + big + ", " + big + "], strides [" + big + ", 1] and offset 0 reaches"
                + " beyond 2^63 bytes", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TensorLayout.of(DType.FLOAT64, new long[] {1L << 61},
                new long[] {1}, 0), "elements fit, bytes do not");
        assertThrows(IllegalArgumentException.class, () -> TensorLayout.of(DType.UINT8, new long[] {2},
                new long[] {Long.MAX_VALUE}, 0), "a stride that overflows");
    }
}
