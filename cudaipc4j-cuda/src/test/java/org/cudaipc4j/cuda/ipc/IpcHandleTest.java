package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class IpcHandleTest {
    private static byte[] pattern(int seed) {
        byte[] b = new byte[64];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 7 + seed);
        }
        return b;
    }

    @Test
    void memoryHandleRoundTripsThroughBytesAndHex() {
        byte[] bytes = pattern(3);
        IpcMemHandle h = IpcMemHandle.fromBytes(bytes);
        assertArrayEquals(bytes, h.toBytes());
        assertEquals(128, h.hex().length());
        assertEquals(h, IpcMemHandle.fromHex(h.hex()));
        assertEquals("030a11", h.hex().substring(0, 6));
        assertEquals("IpcMemHandle[" + h.hex() + "]", h.toString());
    }

    @Test
    void handlesAreImmutableValues() {
        byte[] bytes = pattern(1);
        IpcMemHandle h = IpcMemHandle.fromBytes(bytes);
        bytes[0] = 99;
        assertEquals(1, h.toBytes()[0]);
        byte[] out = h.toBytes();
        out[1] = 99;
        assertEquals(8, h.toBytes()[1]);
        assertNotSame(h.toBytes(), h.toBytes());
    }

    @Test
    void equalityIsByContent() {
        assertEquals(IpcMemHandle.fromBytes(pattern(5)), IpcMemHandle.fromBytes(pattern(5)));
        assertEquals(IpcMemHandle.fromBytes(pattern(5)).hashCode(), IpcMemHandle.fromBytes(pattern(5)).hashCode());
        assertNotEquals(IpcMemHandle.fromBytes(pattern(5)), IpcMemHandle.fromBytes(pattern(6)));
        assertEquals(IpcEventHandle.fromBytes(pattern(5)), IpcEventHandle.fromBytes(pattern(5)));
        assertNotEquals(IpcEventHandle.fromBytes(pattern(5)), IpcEventHandle.fromBytes(pattern(6)));
        assertNotEquals((Object) IpcMemHandle.fromBytes(pattern(5)), IpcEventHandle.fromBytes(pattern(5)));
    }

    @Test
    void eventHandleRoundTrips() {
        IpcEventHandle h = IpcEventHandle.fromBytes(pattern(9));
        assertArrayEquals(pattern(9), h.toBytes());
        assertEquals(h, IpcEventHandle.fromHex(h.hex()));
        assertEquals("IpcEventHandle[" + h.hex() + "]", h.toString());
    }

    @Test
    void wrongSizesAreRejectedClearly() {
        var e = assertThrows(IllegalArgumentException.class, () -> IpcMemHandle.fromBytes(new byte[63]));
        assertEquals("an IPC memory handle is 64 bytes, got 63 bytes", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IpcEventHandle.fromBytes(new byte[65]));
        assertEquals("an IPC event handle is 64 bytes, got 65 bytes", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IpcMemHandle.fromBytes(null));
        assertEquals("an IPC memory handle is 64 bytes, got null", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IpcMemHandle.fromHex("00ff"));
        assertEquals("an IPC memory handle is 64 bytes, got 2 bytes", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IpcEventHandle.fromHex("zz"));
        assertEquals(true, e.getMessage().startsWith("an IPC event handle must be 128 hex digits"), e.getMessage());
    }
}
