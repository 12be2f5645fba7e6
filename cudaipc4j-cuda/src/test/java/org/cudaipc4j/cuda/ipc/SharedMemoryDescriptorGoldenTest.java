package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
