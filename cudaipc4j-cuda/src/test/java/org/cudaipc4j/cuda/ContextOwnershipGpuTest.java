package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.cudaipc4j.cuda.driver.DeviceCalls;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.Test;

/** Closing a context first closes what was made in it; no close order leaks a resource or throws. */
@GpuTest
class ContextOwnershipGpuTest {
    private static final long BIG = 256L << 20;

    @Test
    void closingTheContextFreesWhatIsStillOpenAndLaterClosesDoNothing() {
        // A second reference keeps the primary context alive, so the free memory can be compared.
        try (Context keeper = Context.retainPrimary(Device.get(0))) {
            long freeBefore = keeper.memInfo().free();
            Context ctx = Context.retainPrimary(Device.get(0));
            DeviceBuffer buffer = DeviceBuffer.allocate(ctx, BIG);
            Stream stream = Stream.create(ctx, true);
            Event event = Event.create(ctx, EventFlag.DISABLE_TIMING);
            PinnedArena pinned = PinnedArena.open(ctx);
            MemorySegment host = pinned.allocate(4096);
            buffer.memsetAsync((byte) 1, stream);
            event.record(stream);
            assertEquals(4, ctx.openResources());
            assertTrue(keeper.memInfo().free() <= freeBefore - BIG, "the buffer is allocated");

            ctx.close();
            assertTrue(buffer.isClosed() && stream.isClosed() && event.isClosed() && pinned.isClosed());
            assertEquals(0, ctx.openResources());
            assertThrows(IllegalStateException.class, () -> host.get(ValueLayout.JAVA_BYTE, 0), "pinned memory unmapped");
            assertThrows(IllegalStateException.class, buffer::address);
            assertTrue(keeper.memInfo().free() >= freeBefore - (16L << 20), "the buffer was freed with its context");
            // Closing them afterwards, in any order, is a no-op and never throws.
            buffer.close();
            event.close();
            stream.close();
            pinned.close();
            ctx.close();
            IllegalStateException late = assertThrows(IllegalStateException.class,
                    () -> DeviceBuffer.allocate(ctx, 16));
            assertTrue(late.getMessage().contains("is closed"), late.getMessage());
        }
    }

    @Test
    void closingBeforeExitClosesWhatIsOpenAndLeavesThePrimaryContextToTheProcess() {
        Device device = Device.get(0);
        assertFalse(device.primaryContextActive(), "no reference is held before the test");
        Context released = Context.retainPrimary(device);
        assertTrue(device.primaryContextActive());
        released.close();
        assertFalse(device.primaryContextActive(), "close() releases the reference");

        Context left = Context.retainPrimary(device);
        try {
            DeviceBuffer buffer = DeviceBuffer.allocate(left, 4096);
            left.closeBeforeExit();
            assertTrue(buffer.isClosed() && left.isClosed());
            left.close(); // the first close decided
            assertTrue(device.primaryContextActive(), "the reference is left to the process's end");
        } finally {
            // Released here so that later tests start with no reference held.
            DeviceCalls.devicePrimaryCtxRelease(device.handle());
        }
        assertFalse(device.primaryContextActive());
    }

    @Test
    void aResourceClosedFirstIsForgottenByItsContext() {
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            DeviceBuffer a = DeviceBuffer.allocate(ctx, 4096);
            DeviceBuffer b = DeviceBuffer.allocate(ctx, 4096);
            a.close();
            assertEquals(1, ctx.openResources());
            b.close();
            assertEquals(0, ctx.openResources());
        }
    }
}
