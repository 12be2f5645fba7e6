package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CudaSettingsTest {
    @Test
    void theLibraryNamesAreTheDriversSonameThenTheDevelopmentNameUnlessGiven() {
        assertEquals(List.of("libcuda.so.1", "libcuda.so"), CudaSettings.LIBCUDA.valueOf(null));
        assertEquals(List.of("libcuda.so.1", "libcuda.so"), CudaSettings.LIBCUDA.valueOf(" "));
        assertEquals(List.of("a.so", "/b/c.so"), CudaSettings.LIBCUDA.valueOf(" a.so , ,/b/c.so"));
        assertEquals(List.of(), CudaSettings.LIBCUDA.valueOf(" , "));
    }

    @Test
    void theMeasurementSwitchIsOffByDefault() {
        assertEquals(false, CudaSettings.NO_PRELINK.valueOf(null));
        assertEquals(true, CudaSettings.NO_PRELINK.valueOf("TRUE"));
    }
}
