package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The descriptor's bytes, pinned: the same fields give these exact bytes for every path, whatever the order of
 * {@link IpcPath}'s constants. The expected headers were computed from the documented layout, not by this code.
 */
class SharedMemoryDescriptorGoldenTest {
    /** Magic "CIPCDSC1". */
    private static final String MAGIC = "4349504344534331";
    /**
     * From offset 16: size 1 MiB, UUID (3, 4), pid 77, token 11, export id 2, pool id 1, group 9, PID namespace
     * 4026531836.
     */
    private static final String TAIL = "0000100000000000" + "0300000000000000" + "0400000000000000"
            + "4d00000000000000" + "0b00000000000000" + "0200000000000000" + "0100000000000000"
            + "0900000000000000" + "fcffffef00000000";

    private static String bytesOf(IpcPath path, int handleLength) {
        byte[] handle = new byte[handleLength];
        Arrays.fill(handle, (byte) 0x5a);
        return HexFormat.of().formatHex(new SharedMemoryDescriptor(path, path.needsFileDescriptor() ? 1 : 0,
                1 << 20, new UUID(3, 4), 77, 11, 2, 1, 9, 4026531836L, handle).toBytes());
    }

    /** Path code, fd count, handle length and the spare word (16 bits each), then the tail, then the handle. */
    private static void assertBytes(String codeFdsLength, IpcPath path, int handleLength) {
        String expected = MAGIC + codeFdsLength + "0000" + TAIL + "5a".repeat(handleLength);
        String actual = bytesOf(path, handleLength);
        assertEquals(expected, actual, path.displayName());
        assertEquals(actual, HexFormat.of().formatHex(SharedMemoryDescriptor.fromBytes(HexFormat.of()
                .parseHex(expected)).toBytes()), path.displayName() + " read back");
    }

    @Test
    void everyPathHasItsPinnedBytes() {
        assertBytes("0000" + "0000" + "4000", IpcPath.LEGACY, 64);
        assertBytes("0100" + "0100" + "0000", IpcPath.VMM_FD, 0);
        assertBytes("0200" + "0100" + "4000", IpcPath.POOL_FD, 64);
        assertBytes("0300" + "0000" + "4000", IpcPath.VMM_FABRIC, 64);
        assertBytes("0400" + "0000" + "8000", IpcPath.POOL_FABRIC, 128);
    }

    /**
     * A descriptor built field by field (as one made from a JSON descriptor is) has the same pinned bytes, with a
     * process token of 0: never this process's.
     */
    @Test
    void aBuiltDescriptorHasThePinnedBytesWithTokenZero() {
        String tail = TAIL.replace("0b00000000000000", "0000000000000000");
        IpcPath[] paths = {IpcPath.LEGACY, IpcPath.VMM_FD, IpcPath.POOL_FD, IpcPath.VMM_FABRIC, IpcPath.POOL_FABRIC};
        String[] heads = {"0000" + "0000" + "4000", "0100" + "0100" + "0000", "0200" + "0100" + "4000",
            "0300" + "0000" + "4000", "0400" + "0000" + "8000"};
        int[] handles = {64, 0, 64, 64, 128};
        for (int i = 0; i < paths.length; i++) {
            byte[] handle = new byte[handles[i]];
            Arrays.fill(handle, (byte) 0x5a);
            SharedMemoryDescriptor d = SharedMemoryDescriptor.builder(paths[i]).bytes(1 << 20)
                    .device(new UUID(3, 4)).exporter(77, 4026531836L).exportId(2).poolId(1).group(9).handle(handle)
                    .build();
            assertEquals(MAGIC + heads[i] + "0000" + tail + "5a".repeat(handles[i]),
                    HexFormat.of().formatHex(d.toBytes()), paths[i].displayName());
            assertFalse(d.exportedHere());
            assertEquals(4026531836L, d.pidNamespace());
            assertEquals(1, d.poolId());
        }
    }

    @Test
    void aBuilderRefusesWhatFromBytesRefuses() {
        assertEquals("memory descriptor for legacy carries 0 handle bytes and 0 file descriptors; that path needs 64"
                + " and 0", assertThrows(IllegalArgumentException.class, () -> SharedMemoryDescriptor
                .builder(IpcPath.LEGACY).bytes(1).device(new UUID(3, 4)).build()).getMessage());
        assertEquals("memory descriptor has a bad size 0", assertThrows(IllegalArgumentException.class,
                () -> SharedMemoryDescriptor.builder(IpcPath.VMM_FD).device(new UUID(3, 4)).build()).getMessage());
        assertThrows(NullPointerException.class, () -> SharedMemoryDescriptor.builder(IpcPath.VMM_FD).bytes(1)
                .build());
    }

    /** The header's layout is the documented one: each field at its offset, 88 bytes in all. */
    @Test
    void theHeaderLayoutHasTheDocumentedOffsets() {
        String[] fields = {"magic", "path", "fds", "handleLength", "spare", "bytes", "deviceMost", "deviceLeast",
            "pid", "token", "exportId", "poolId", "group", "pidNamespace"};
        long[] offsets = {0, 8, 10, 12, 14, 16, 24, 32, 40, 48, 56, 64, 72, 80};
        for (int i = 0; i < fields.length; i++) {
            assertEquals(offsets[i], SharedMemoryDescriptor.HEADER.byteOffset(groupElement(fields[i])), fields[i]);
        }
        assertEquals(88, SharedMemoryDescriptor.HEADER.byteSize());
    }

    /** The codes are the format's, spelled out here: reordering or inserting constants cannot move them. */
    @Test
    void wireCodesAreFixed() {
        assertEquals(0, IpcPath.LEGACY.wireCode());
        assertEquals(1, IpcPath.VMM_FD.wireCode());
        assertEquals(2, IpcPath.POOL_FD.wireCode());
        assertEquals(3, IpcPath.VMM_FABRIC.wireCode());
        assertEquals(4, IpcPath.POOL_FABRIC.wireCode());
        for (IpcPath p : IpcPath.values()) {
            assertEquals(p, IpcPath.ofWireCode(p.wireCode()).orElseThrow());
        }
        for (int code : new int[] {-1, 5, 9, Short.MAX_VALUE, Integer.MIN_VALUE}) {
            assertTrue(IpcPath.ofWireCode(code).isEmpty(), "code " + code);
        }
    }
}
