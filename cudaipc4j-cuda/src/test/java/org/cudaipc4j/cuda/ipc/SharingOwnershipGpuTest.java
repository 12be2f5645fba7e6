package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.Test;

/**
 * The sharing package's resources are owned by their context as the typed layer's are (through
 * {@code ForeignResource}): closing the context closes them newest first, and no close order leaks or throws.
 */
@GpuTest
class SharingOwnershipGpuTest {
    private static final Set<ShareableHandleType> FD = Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR);

    @Test
    void closingTheContextClosesVmmAndPoolMemoryAndLaterClosesDoNothing() {
        Context ctx = Context.retainPrimary(Device.get(0));
        try {
            Stream stream = Stream.create(ctx, true);
            VmmAllocation vmm = VmmAllocation.create(ctx, 1, FD);
            MemoryPool pool = MemoryPool.create(ctx, FD, 0);
            PoolBuffer pooled = pool.allocate(4096, stream);
            DeviceBuffer buffer = DeviceBuffer.allocate(ctx, 4096);
            IpcMemHandle.export(buffer);
            assertEquals(5, ctx.openResources());

            ctx.close();
            assertTrue(stream.isClosed() && vmm.isClosed() && pool.isClosed() && pooled.isClosed()
                    && buffer.isClosed());
            assertEquals(0, ctx.openResources());
            assertThrows(IllegalStateException.class, vmm::address);
            assertThrows(IllegalStateException.class, pooled::address);
            assertThrows(IllegalStateException.class, () -> IpcMemHandle.export(buffer));
            // Closing them afterwards, in any order, is a no-op and never throws.
            pool.close();
            pooled.close();
            vmm.close();
            buffer.close();
        } finally {
            ctx.close();
        }
    }

    @Test
    void closingAPoolClosesItsBuffersAndBothAreForgottenByTheContext() {
        try (Context ctx = Context.retainPrimary(Device.get(0));
             Stream stream = Stream.create(ctx, true)) {
            MemoryPool pool = MemoryPool.create(ctx, FD, 0);
            PoolBuffer first = pool.allocate(4096, stream);
            PoolBuffer second = pool.allocate(4096, stream);
            assertEquals(4, ctx.openResources());
            first.close();
            assertEquals(3, ctx.openResources());
            pool.close();
            assertTrue(second.isClosed(), "the pool closes its buffers first");
            assertEquals(1, ctx.openResources());
            assertFalse(stream.isClosed());
        }
    }
}
