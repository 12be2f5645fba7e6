package org.cudaipc4j.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void everyWarmUpCallIsRefusedAndTheDeviceIsUsableAfterwards() throws InterruptedException {
        Cuda.init();
        // On a thread that never had a context current, as the background thread that makes these calls.
        AtomicReference<Map<String, Integer>> codes = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> codes.set(Prelink.warmUp()));
        t.join(60_000);
        assertEquals(18, codes.get().size(), codes.get().toString());
        codes.get().forEach((function, code) -> assertNotEquals(0, code, function + " succeeded"));
        try (Context context = Context.retainPrimary(Device.get(0))) {
            context.makeCurrent();
            try (DeviceBuffer buffer = DeviceBuffer.allocate(context, 1 << 20)) {
                assertTrue(buffer.address() != 0);
            }
        }
    }

    @Test
    void theBackgroundThreadWarmsUpOnceTheDriverHasStarted() throws InterruptedException {
        Thread t = Prelink.startInBackground(Cuda::init);
        t.join(60_000);
        assertTrue(!t.isAlive(), "linking and warming up did not end within 60 s");
    }
}
