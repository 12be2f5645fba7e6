package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@GpuTest
class DeviceMemoryGpuTest {
    private static Context ctx;
    private static Stream stream;

    @BeforeAll
    static void open() {
        ctx = Context.retainPrimary(Device.get(0));
        stream = Stream.create(ctx, true);
    }

    @AfterAll
    static void close() {
        Closeables.closeAll(stream, ctx);
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void deviceReportsPlausibleProperties() {
        Device d = ctx.device();
        assertFalse(d.name().isBlank());
        assertTrue(d.pciBusId().matches("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]"), d.pciBusId());
        assertTrue(d.totalMemory() > 0);
        assertTrue(d.multiprocessorCount() > 0);
        assertTrue(d.computeCapability().compareTo(new ComputeCapability(7, 5)) >= 0, "PTX targets 7.5+");
        assertTrue(d.unifiedAddressing(), "64-bit Linux devices use unified addressing");
        assertFalse(d.canAccessPeer(d), "a device is not its own peer");
        MemInfo info = ctx.memInfo();
        assertTrue(info.free() > 0 && info.free() <= info.total(), info.toString());
        assertTrue(Cuda.driverVersion() >= 12000, "the library needs a CUDA 12.0+ driver");
        assertEquals(d, Device.byUuid(d.uuid()));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Device.byUuid(new java.util.UUID(1, 2)));
        assertTrue(unknown.getMessage().contains("no visible CUDA device has UUID GPU-00000000-0000-0001-0000-"
                + "000000000002 (visible: 0: GPU-" + d.uuid()), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Device.get(Device.count()));
    }

    @Test
    void byteArraysRoundTripWithOffsets() {
        int n = (1 << 20) + 13;
        byte[] data = random(n, 1);
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, n)) {
            buf.copyFrom(0, data, 0, n);
            assertArrayEquals(data, buf.read(0, n));
            buf.copyFrom(5, data, 3, 100);
            assertArrayEquals(Arrays.copyOfRange(data, 3, 103), buf.read(5, 100));
            assertArrayEquals(Arrays.copyOfRange(data, 0, 5), buf.read(0, 5));
            byte[] out = new byte[50];
            buf.copyTo(n - 20, out, 30, 20);
            assertArrayEquals(Arrays.copyOfRange(data, n - 20, n), Arrays.copyOfRange(out, 30, 50));
        }
    }

    @Test
    void heapCopiesLargerThanTheStagingChunk() {
        int n = (9 << 20) + 1;
        byte[] data = random(n, 2);
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, n)) {
            buf.copyFrom(0, MemorySegment.ofArray(data));
            byte[] back = new byte[n];
            buf.copyTo(0, MemorySegment.ofArray(back));
            assertArrayEquals(data, back);
        }
    }

    @Test
    void asyncCopiesThroughPinnedMemory() {
        int n = 3 << 20;
        byte[] data = random(n, 3);
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, n); PinnedArena pinned = PinnedArena.open(ctx)) {
            MemorySegment up = pinned.allocate(n);
            MemorySegment down = pinned.allocate(n, 8192);
            assertEquals(0, down.address() % 8192, "alignment above a page");
            MemorySegment.copy(data, 0, up, ValueLayout.JAVA_BYTE, 0, n);
            buf.copyFromAsync(0, up, stream);
            buf.copyToAsync(0, down, stream);
            stream.synchronize();
            assertArrayEquals(data, down.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(up.address(), pinned.devicePointer(up), "unified addressing: the host address is the device's");
            assertThrows(IllegalArgumentException.class,
                    () -> buf.copyFromAsync(0, MemorySegment.ofArray(new byte[4]), stream));
        }
    }

    @Test
    void nativeSegmentsCopySynchronously() {
        try (Arena arena = Arena.ofConfined(); DeviceBuffer buf = DeviceBuffer.allocate(ctx, 4096)) {
            MemorySegment src = arena.allocate(1000);
            for (int i = 0; i < 1000; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            buf.copyFrom(96, src);
            MemorySegment dst = arena.allocate(1000);
            buf.copyTo(96, dst);
            assertEquals(-1, src.mismatch(dst));
        }
    }

    @Test
    void memsetSyncAndAsync() {
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, 4096)) {
            buf.memset((byte) 0x5a);
            buf.memset(10, 20, (byte) 1);
            buf.memsetAsync(30, 5, (byte) 0xff, stream);
            stream.synchronize();
            byte[] b = buf.read(0, 4096);
            for (int i = 0; i < b.length; i++) {
                byte want = i >= 10 && i < 30 ? 1 : i >= 30 && i < 35 ? (byte) 0xff : 0x5a;
                assertEquals(want, b[i], "byte " + i);
            }
            buf.memsetAsync((byte) 0x80, stream);
            stream.synchronize();
            byte[] all = buf.read(0, 4096);
            for (byte x : all) {
                assertEquals((byte) 0x80, x);
            }
        }
    }

    @Test
    void deviceToDeviceCopies() {
        byte[] data = random(10_000, 4);
        try (DeviceBuffer a = DeviceBuffer.allocate(ctx, 10_000); DeviceBuffer b = DeviceBuffer.allocate(ctx, 10_000)) {
            a.copyFrom(0, data, 0, data.length);
            b.memset((byte) 0);
            b.copyFrom(100, a, 200, 5000);
            b.copyFromAsync(6000, a, 0, 10, stream);
            stream.synchronize();
            byte[] got = b.read(0, 10_000);
            assertArrayEquals(Arrays.copyOfRange(data, 200, 5200), Arrays.copyOfRange(got, 100, 5100));
            assertArrayEquals(Arrays.copyOfRange(data, 0, 10), Arrays.copyOfRange(got, 6000, 6010));
            assertEquals(0, got[99]);
            assertEquals(0, got[5100]);
        }
    }

    @Test
    void rangesAndLifecycleAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> DeviceBuffer.allocate(ctx, 0));
        DeviceBuffer buf = DeviceBuffer.allocate(ctx, 64);
        assertThrows(IndexOutOfBoundsException.class, () -> buf.read(60, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> buf.memset(-1, 2, (byte) 0));
        assertThrows(IndexOutOfBoundsException.class, () -> buf.copyFrom(0, new byte[65], 0, 65));
        buf.close();
        buf.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, buf::address);
        assertEquals("device buffer of 64 bytes on device 0 is closed", e.getMessage());
        PinnedArena pinned = PinnedArena.open(ctx);
        MemorySegment seg = pinned.allocate(16);
        pinned.close();
        pinned.close();
        assertThrows(IllegalStateException.class, () -> seg.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, () -> pinned.allocate(16));
    }

    @Test
    void aSecondReferenceSharesThePrimaryContextAndItsReleaseLeavesTheFirstWorking() {
        Device device = ctx.device();
        try (Context second = Context.retainPrimary(device);
             DeviceBuffer inSecond = DeviceBuffer.allocate(second, 64)) {
            assertEquals(ctx.handle(), second.handle(), "one primary context per device");
            inSecond.memset(0, 64, (byte) 5);
            assertArrayEquals(filled(64, (byte) 5), inSecond.read(0, 64));
        }
        // Had the close above released the driver's only reference, the driver would have reset the context and
        // freed everything made in it.
        assertTrue(device.primaryContextActive(), "the first reference still holds the context");
        try (DeviceBuffer buf = DeviceBuffer.allocate(ctx, 64)) {
            buf.memset(0, 64, (byte) 9);
            ctx.synchronize();
            assertArrayEquals(filled(64, (byte) 9), buf.read(0, 64), "the first reference's context still works");
        }
    }

    private static byte[] filled(int n, byte value) {
        byte[] b = new byte[n];
        Arrays.fill(b, value);
        return b;
    }
}
