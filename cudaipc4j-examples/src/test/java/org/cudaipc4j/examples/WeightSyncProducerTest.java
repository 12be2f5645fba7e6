package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.examples.ExportedStateDict.ExportPath;
import org.cudaipc4j.examples.WeightSyncProducerExample.Options;
import org.cudaipc4j.interop.DType;
import org.junit.jupiter.api.Test;

/** The Java trainer's arguments and state dict, without a GPU. */
class WeightSyncProducerTest {
    @Test
    void theArgumentsAfterThePackageDirectory() {
        assertEquals(new Options(50, 100, ExportPath.POOL, 1234, StateDict.MIXED), Options.parse(List.of()));
        assertEquals(new Options(5, 100, ExportPath.POOL, 1234, StateDict.MIXED), Options.parse(List.of("5")));
        assertEquals(new Options(5, 12, ExportPath.VMM, 1234, StateDict.MIXED), Options.parse(List.of("5", "12",
                "vmm")));
        assertEquals(ExportPath.LEGACY, Options.parse(List.of("1", "1", "legacy")).path());
        assertEquals(new Options(2, 20_000, ExportPath.POOL, 1234, StateDict.SMALL_BF16), Options.parse(List.of("2",
                "20000", "pool", "bf16-small")));
        assertEquals(65_528, Options.parse(List.of("1", "65528")).tensors(), "as many as the holder table holds");
    }

    @Test
    void badArgumentsAreRefusedInOneLine() {
        assertRefused("usage: WeightSyncProducerExample PYTHON_PACKAGE_DIR [ROUNDS [TENSORS [pool|vmm|legacy"
                + " [mixed|bf16-small]]]]", List.of("1", "2", "pool", "mixed", "more"));
        assertRefused("the state dict is mixed or bf16-small, got 'huge'", List.of("1", "2", "pool", "huge"));
        assertRefused("ROUNDS and TENSORS are integers: x", List.of("x"));
        assertRefused("the export path is pool, vmm or legacy, got 'fabric'", List.of("1", "2", "fabric"));
        assertRefused("rounds must be at least 1 and tensors 1 to 65528, got 0 and 100", List.of("0"));
        assertRefused("rounds must be at least 1 and tensors 1 to 65528, got 1 and 65529", List.of("1", "65529"));
    }

    private static void assertRefused(String message, List<String> args) {
        var e = assertThrows(IllegalArgumentException.class, () -> Options.parse(args));
        assertEquals(message, e.getMessage());
    }

    @Test
    void theStateDictSpansOneKibToTwoHundredFiftySixMibWithEveryDtypeOfTheTorchTrainer() {
        List<ExportedStateDict.Spec> specs = ExportedStateDict.specs(100, StateDict.MIXED);
        assertEquals(100, specs.size());
        assertEquals(1024, specs.getFirst().bytes());
        long last = specs.getLast().bytes();
        assertTrue(last <= 256L << 20 && last > (256L << 20) - 64, "the largest: " + last);
        Set<String> names = new HashSet<>();
        Set<DType> dtypes = new HashSet<>();
        long total = 0;
        long previous = 0;
        for (ExportedStateDict.Spec s : specs) {
            assertTrue(s.bytes() > previous, s.name());
            previous = s.bytes();
            assertEquals(0, s.bytes() % 8, s.name() + ": the checksum reads 8-byte words");
            long elements = 1;
            for (long d : s.shape()) {
                elements *= d;
            }
            assertEquals(s.bytes(), elements * s.dtype().elementSize(), s.name() + ": shape and dtype fill it");
            assertTrue(names.add(s.name()) && !s.name().contains(" "), s.name());
            dtypes.add(s.dtype());
            total += s.bytes();
        }
        assertEquals(Set.of(DType.FLOAT32, DType.BFLOAT16, DType.FLOAT16, DType.INT32, DType.INT64, DType.UINT8,
                DType.FLOAT64), dtypes);
        assertTrue(total > (2L << 30) && total < (5L << 29), "about 2.2 GiB: " + total);
        assertTrue(specs.stream().anyMatch(s -> s.shape().length == 2), "some two-dimensional");
        assertEquals(List.of(256L << 20), ExportedStateDict.specs(1, StateDict.MIXED).stream()
                .map(ExportedStateDict.Spec::bytes)
                .toList());
        assertThrows(IllegalArgumentException.class, () -> ExportedStateDict.specs(0, StateDict.MIXED));
    }

    @Test
    void theSmallBf16StateDictSpans512BytesTo2MibOfBf16() {
        List<ExportedStateDict.Spec> specs = ExportedStateDict.specs(20_000, StateDict.SMALL_BF16);
        assertEquals(20_000, specs.size());
        assertEquals(512, specs.getFirst().bytes());
        long last = specs.getLast().bytes();
        assertTrue(last <= 2L << 20 && last > (2L << 20) - 64, "the largest: " + last);
        long total = 0;
        Set<String> names = new HashSet<>();
        for (ExportedStateDict.Spec s : specs) {
            assertEquals(DType.BFLOAT16, s.dtype(), s.name());
            assertEquals(0, s.bytes() % 8, s.name());
            assertTrue(names.add(s.name()), s.name());
            total += s.bytes();
        }
        assertTrue(total > (9L << 29) && total < (5L << 30), "about 4.7 GiB: " + total);
        assertEquals("layer19999.bfloat16", specs.getLast().name());
    }

    @Test
    void everyStateDictHasItsCode() {
        for (StateDict d : StateDict.values()) {
            assertEquals(d, StateDict.parse(d.code()));
        }
        assertEquals("mixed", StateDict.MIXED.code());
        assertEquals("bf16-small", StateDict.SMALL_BF16.code());
    }

    @Test
    void everyExportPathHasItsCode() {
        for (ExportPath p : ExportPath.values()) {
            assertEquals(p, ExportPath.parse(p.code()));
        }
    }
}
