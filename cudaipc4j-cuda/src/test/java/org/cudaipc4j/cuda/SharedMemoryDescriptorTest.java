package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SharedMemoryDescriptorTest {
    private static SharedMemoryDescriptor pool() {
        byte[] data = new byte[64];
        data[0] = 7;
        return SharedMemoryDescriptor.fromBytes(new SharedMemoryDescriptor(IpcPath.POOL_FD, 1, 4096,
                new UUID(1, 2), 4242, 99, 5, 3, 0, 0, data).toBytes());
    }

    private static SharedMemoryDescriptor legacyFromNamespace(long pidNamespace) {
        return SharedMemoryDescriptor.fromBytes(new SharedMemoryDescriptor(IpcPath.LEGACY, 0, 4096,
                new UUID(1, 2), 4242, 99, 5, 0, 0, pidNamespace, new byte[64]).toBytes());
    }

    @Test
    void tellsWhenTheExporterRunsInAnotherPidNamespace() throws Exception {
        String link = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/pid")).toString();
        long own = Long.parseLong(link.replaceAll("\\D", ""));
        assertFalse(legacyFromNamespace(own).fromAnotherPidNamespace());
        assertTrue(legacyFromNamespace(own + 1).fromAnotherPidNamespace());
        assertFalse(legacyFromNamespace(0).fromAnotherPidNamespace(), "0: the exporter could not tell");
    }

    @Test
    void roundTripsThroughBytes() {
        SharedMemoryDescriptor d = pool().inGroup(0xabc);
        SharedMemoryDescriptor back = SharedMemoryDescriptor.fromBytes(d.toBytes());
        assertEquals(d, back);
        assertEquals(IpcPath.POOL_FD, back.path());
        assertEquals(1, back.fileDescriptorCount());
        assertEquals(4096, back.bytes());
        assertEquals(new UUID(1, 2), back.device());
        assertEquals(4242, back.exporterPid());
        assertEquals(0xabc, back.group());
        assertEquals(7, back.handle()[0]);
        assertFalse(back.exportedHere());
        assertEquals(back, back.requireGroup(0xabc));
    }

    @Test
    void truncatedForeignOrInconsistentDescriptorsAreRefusedSayingWhy() {
        byte[] good = pool().toBytes();
        assertEquals("truncated memory descriptor: 87 bytes, a descriptor has at least 88",
                assertThrows(IllegalArgumentException.class,
                        () -> SharedMemoryDescriptor.fromBytes(Arrays.copyOf(good, 87))).getMessage());
        assertEquals("truncated memory descriptor: 100 bytes, its header announces 152",
                assertThrows(IllegalArgumentException.class,
                        () -> SharedMemoryDescriptor.fromBytes(Arrays.copyOf(good, 100))).getMessage());
        byte[] foreign = good.clone();
        foreign[0] ^= 1;
        assertEquals("not a memory descriptor (magic 0x3143534443504942)", assertThrows(
                IllegalArgumentException.class, () -> SharedMemoryDescriptor.fromBytes(foreign)).getMessage());
        byte[] noFd = good.clone();
        noFd[10] = 0;
        assertEquals("memory descriptor for pool-fd carries 64 handle bytes and 0 file descriptors; that path needs"
                + " 64 and 1", assertThrows(IllegalArgumentException.class,
                        () -> SharedMemoryDescriptor.fromBytes(noFd)).getMessage());
        byte[] unknown = good.clone();
        unknown[8] = 9;
        assertEquals("memory descriptor names an unknown path 9", assertThrows(IllegalArgumentException.class,
                () -> SharedMemoryDescriptor.fromBytes(unknown)).getMessage());
        assertArrayEquals(good, SharedMemoryDescriptor.fromBytes(good).toBytes());
    }

    @Test
    void aDescriptorOfAnotherGroupIsRefusedNamingBoth() {
        SharedMemoryDescriptor d = pool().inGroup(7);
        assertEquals("the memory descriptor belongs to group 7, not to this group (8)",
                assertThrows(IllegalArgumentException.class, () -> d.requireGroup(8)).getMessage());
        assertEquals(d, d.requireGroup(7));
    }
}
