package org.cudaipc4j.coord.fd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** A descriptor message's bytes: the header's fields in order, then the payload. */
class FdMessageFormatTest {
    @Test
    void theHeaderIsMagicLengthAndCountLittleEndian() {
        assertEquals(12, FdChannel.HEADER.byteSize());
        try (Arena arena = Arena.ofConfined()) {
            byte[] done = "done".getBytes(StandardCharsets.US_ASCII);
            // Python's tests/test_fdsocket.py expects the same bytes of its fdsocket.send(b"done").
            assertEquals("43494644" + "04000000" + "00000000" + "646f6e65",
                    HexFormat.of().formatHex(FdChannel.framed(arena, done, 0).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals("43494644" + "00000000" + "fd000000",
                    HexFormat.of().formatHex(FdChannel.framed(arena, new byte[0], 253).toArray(ValueLayout.JAVA_BYTE)));
        }
    }
}
