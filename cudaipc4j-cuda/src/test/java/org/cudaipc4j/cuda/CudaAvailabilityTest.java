package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Why CUDA cannot be used, on a machine without the driver (CI) and on one with it (the GPU machine). */
class CudaAvailabilityTest {
    @Test
    void theReasonIsOneLineFromTheFailureOrThereIsNone() {
        Optional<String> why = Cuda.unavailableReason();
        why.ifPresent(w -> assertFalse(w.isBlank() || w.contains("\n"), w));
        if (!Cuda.isDriverAvailable()) {
            assertEquals(Optional.of(assertThrows(DriverNotFoundException.class, Cuda::init).getMessage()), why);
            return;
        }
        try {
            Cuda.init();
        } catch (CudaException e) {
            assertTrue(why.orElseThrow().contains(e.getMessage()), why.orElseThrow());
            return;
        }
        assertEquals(Device.count() == 0 ? Optional.of("no CUDA device found") : Optional.empty(), why);
    }
}
