package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.Test;

@GpuTest
class PrelinkGpuTest {
    @Test
    void everyWarmCallIsRefusedAndTheDeviceIsUsableAfterwards() throws InterruptedException {
        Cuda.init();
        // On a thread that never had a context current, as the background thread that makes these calls.
        AtomicReference<Map<String, Integer>> codes = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> codes.set(Prelink.warm(Prelink.warmable())));
        t.join(60_000);
        assertEquals(Prelink.warmable(), codes.get().keySet());
        codes.get().forEach((function, code) -> assertNotEquals(0, code, function + " succeeded"));
        try (Context context = Context.retainPrimary(Device.get(0))) {
            context.makeCurrent();
            try (DeviceBuffer buffer = DeviceBuffer.allocate(context, 1 << 20)) {
                assertTrue(buffer.address() != 0);
            }
        }
    }

    @Test
    void theBackgroundThreadWarmsOnceTheDriverHasStarted() throws InterruptedException {
        List<String> warm = List.of("cuMemAlloc_v2", "cuStreamWaitEvent", "cuLaunchKernel");
        Thread t = Cuda.prelinkInBackground(List.of("cuMemAlloc_v2"), warm);
        t.join(60_000);
        assertFalse(t.isAlive(), "linking and warming did not end within 60 s");
        assertEquals(warm, List.copyOf(Prelink.lastWarmUp.keySet()), "the warm calls ran, in order");
        Prelink.lastWarmUp.forEach((function, code) -> assertNotEquals(0, code, function + " succeeded"));
    }
}
