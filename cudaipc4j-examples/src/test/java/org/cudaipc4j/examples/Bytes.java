package org.cudaipc4j.examples;

import org.cudaipc4j.cuda.DeviceMemory;

/** Host-side checks of device memory, for the tests. */
final class Bytes {
    private Bytes() {}

    /** Null when every byte of {@code memory} is {@code value}, else the first that is not. */
    static String firstDifference(DeviceMemory memory, byte value) {
        int chunk = 1 << 20;
        for (long at = 0; at < memory.bytes(); at += chunk) {
            int len = (int) Math.min(chunk, memory.bytes() - at);
            byte[] got = memory.read(at, len);
            for (int i = 0; i < len; i++) {
                if (got[i] != value) {
                    return "byte " + (at + i) + " is " + (got[i] & 0xff) + ", not " + (value & 0xff);
                }
            }
        }
        return null;
    }
}
