package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Which export a call reaches on drivers of different ages, with lookups standing in for libcuda. */
class SymbolFallbackTest {
    private static final MemorySegment V2 = MemorySegment.ofAddress(0x2000);
    private static final MemorySegment V1 = MemorySegment.ofAddress(0x1000);

    private static SymbolLookup exporting(Map<String, MemorySegment> exports) {
        return name -> Optional.ofNullable(exports.get(name));
    }

    @Test
    void aDriverWithTheNewerExportIsCalledThroughIt() {
        SymbolLookup driver = exporting(Map.of("cuEventElapsedTime_v2", V2, "cuEventElapsedTime", V1));
        CudaLibrary.Resolved r = find(driver, CudaFunction.cuEventElapsedTime_v2).orElseThrow();
        assertEquals("cuEventElapsedTime_v2", r.name());
        assertEquals(V2.address(), r.address().address());
    }

    @Test
    void aDriverOlderThanCuda12_8IsCalledThroughTheOlderExport() {
        SymbolLookup driver = exporting(Map.of("cuEventElapsedTime", V1));
        CudaLibrary.Resolved r = find(driver, CudaFunction.cuEventElapsedTime_v2).orElseThrow();
        assertEquals("cuEventElapsedTime", r.name());
        assertEquals(V1.address(), r.address().address());
    }

    @Test
    void neitherExportIsMissing() {
        assertTrue(find(exporting(Map.of()), CudaFunction.cuEventElapsedTime_v2).isEmpty());
    }

    @Test
    void aNameWithoutFallbackIsNeverReplaced() {
        // cuMemAlloc is another ABI (32-bit sizes) than cuMemAlloc_v2: no call may drift to an unversioned name.
        SymbolLookup driver = exporting(Map.of("cuMemAlloc", V1));
        assertTrue(find(driver, CudaFunction.cuMemAlloc_v2).isEmpty());
    }

    @Test
    void aFallbackIsNoDeclaredFunction() {
        // The older export is linked with the newer one's descriptor: it must not be a call of its own (the
        // declarations hold only the names cuda.h maps to).
        List<CudaFunction> withFallback =
                Stream.of(CudaFunction.values()).filter(f -> f.fallback().isPresent()).toList();
        assertEquals(List.of(CudaFunction.cuEventElapsedTime_v2), withFallback);
        withFallback.forEach(f -> assertTrue(CudaFunction.named(f.fallback().orElseThrow()).isEmpty(),
                f.fallback() + " is a call of its own"));
    }

    private static Optional<CudaLibrary.Resolved> find(SymbolLookup driver, CudaFunction function) {
        return CudaLibrary.find(driver, function.name(), function.fallback().orElse(null));
    }
}
