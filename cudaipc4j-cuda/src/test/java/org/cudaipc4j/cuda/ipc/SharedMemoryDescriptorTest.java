package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
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

    /** A valid descriptor of each path, as bytes. */
    private static List<byte[]> everyPath() {
        return Arrays.stream(IpcPath.values()).map(path -> {
            int handle = switch (path) {
                case LEGACY, VMM_FABRIC, POOL_FD -> 64;
                case VMM_FD -> 0;
                case POOL_FABRIC -> 128;
            };
            byte[] h = new byte[handle];
            Arrays.fill(h, (byte) 0x5a);
            return new SharedMemoryDescriptor(path, path.needsFileDescriptor() ? 1 : 0, 1 << 20, new UUID(3, 4), 77,
                    11, 2, 1, 9, 4026531836L, h).toBytes();
        }).toList();
    }

    /** {@code data} with the 16-bit field at {@code offset} set to {@code value}. */
    private static byte[] withShort(byte[] data, int offset, int value) {
        byte[] copy = data.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putShort(offset, (short) value);
        return copy;
    }

    private static String refusal(byte[] data) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SharedMemoryDescriptor.fromBytes(data));
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank() && !e.getMessage().contains("\n"),
                "one line naming what is wrong: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void everyTruncationIsRefusedAndSaysHowLongItIs() {
        for (byte[] good : everyPath()) {
            for (int length = 0; length < good.length; length++) {
                String message = refusal(Arrays.copyOf(good, length));
                assertTrue(message.startsWith("truncated memory descriptor: " + length + " bytes, "), message);
            }
        }
    }

    @Test
    void extraBytesAfterTheHandleAreRefused() {
        byte[] good = pool().toBytes();
        assertEquals("over-long memory descriptor: 153 bytes, its header announces 152",
                refusal(Arrays.copyOf(good, good.length + 1)));
        assertEquals("over-long memory descriptor: 1152 bytes, its header announces 152",
                refusal(Arrays.copyOf(good, good.length + 1000)));
        // A VMM descriptor has no handle bytes: a legacy handle glued to one is not silently dropped.
        byte[] vmm = everyPath().get(IpcPath.VMM_FD.ordinal());
        assertEquals("over-long memory descriptor: 152 bytes, its header announces 88",
                refusal(Arrays.copyOf(vmm, vmm.length + 64)));
    }

    @Test
    void negativeOrUnknownPathCodesAreRefused() {
        byte[] good = pool().toBytes();
        for (int code : new int[] {-1, -2, Short.MIN_VALUE, IpcPath.values().length, 9, Short.MAX_VALUE}) {
            assertEquals("memory descriptor names an unknown path " + code, refusal(withShort(good, 8, code)));
        }
    }

    @Test
    void sizesBelowOneByteAreRefused() {
        for (long size : new long[] {0, -1, Long.MIN_VALUE}) {
            byte[] bad = pool().toBytes();
            ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putLong(16, size);
            assertEquals("memory descriptor has a bad size " + size, refusal(bad));
        }
    }

    @Test
    void descriptorCountsAndHandleLengthsThatDoNotFitThePathAreRefused() {
        byte[] good = pool().toBytes();
        assertEquals("memory descriptor for pool-fd carries 64 handle bytes and -1 file descriptors; that path needs"
                + " 64 and 1", refusal(withShort(good, 10, -1)));
        assertEquals("memory descriptor for pool-fd carries 64 handle bytes and 253 file descriptors; that path"
                + " needs 64 and 1", refusal(withShort(good, 10, 253)));
        // The largest handle length the field can announce, with that many bytes present.
        byte[] huge = Arrays.copyOf(withShort(good, 12, 0xffff), 88 + 0xffff);
        assertEquals("memory descriptor for pool-fd carries 65535 handle bytes and 1 file descriptors; that path"
                + " needs 64 and 1", refusal(huge));
        assertEquals("memory descriptor has 1 in its reserved field, which is always 0",
                refusal(withShort(good, 14, 1)));
        assertEquals("memory descriptor has -1 in its reserved field, which is always 0",
                refusal(withShort(good, 14, -1)));
    }

    /**
     * Random bytes, and valid descriptors with random bytes changed, cut or appended: each is refused with an
     * IllegalArgumentException, or read as a descriptor whose bytes are exactly the input (nothing ignored).
     */
    @Test
    void randomBytesAreRefusedOrReadExactly() {
        long seed = Long.getLong("cudaipc4j.test.seed", System.nanoTime());
        System.out.println("SharedMemoryDescriptorTest seed " + seed + " (rerun with -Dcudaipc4j.test.seed=" + seed
                + ")");
        Random random = new Random(seed);
        List<byte[]> valid = everyPath();
        int refused = 0;
        int read = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] data;
            switch (i % 4) {
                case 0 -> {
                    data = new byte[random.nextInt(300)];
                    random.nextBytes(data);
                }
                case 1 -> {
                    // Past the magic, so that the later checks are reached.
                    data = valid.get(random.nextInt(valid.size())).clone();
                    for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                        data[8 + random.nextInt(data.length - 8)] = (byte) random.nextInt(256);
                    }
                }
                case 2 -> {
                    byte[] base = valid.get(random.nextInt(valid.size()));
                    data = Arrays.copyOf(base, random.nextInt(base.length + 200));
                    for (int at = base.length; at < data.length; at++) {
                        data[at] = (byte) random.nextInt(256);
                    }
                }
                default -> {
                    data = new byte[8 + random.nextInt(300)];
                    random.nextBytes(data);
                    System.arraycopy(valid.getFirst(), 0, data, 0, 8);
                }
            }
            byte[] input = data;
            try {
                SharedMemoryDescriptor d = SharedMemoryDescriptor.fromBytes(input);
                assertArrayEquals(input, d.toBytes(), () -> "read, but not exactly (seed " + seed + ")");
                read++;
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "seed " + seed);
                refused++;
            } catch (RuntimeException e) {
                throw new AssertionError("not an IllegalArgumentException (seed " + seed + ", input "
                        + java.util.HexFormat.of().formatHex(input) + ")", e);
            }
        }
        assertTrue(refused > 0 && read > 0, "both outcomes seen: " + refused + " refused, " + read + " read (seed "
                + seed + ")");
    }
}
