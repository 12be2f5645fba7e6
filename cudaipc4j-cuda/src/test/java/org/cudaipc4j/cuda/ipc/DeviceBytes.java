package org.cudaipc4j.cuda.ipc;

import org.cudaipc4j.cuda.DeviceMemory;

/** Checks of device memory from the host, for tests that have no kernel of their own. */
final class DeviceBytes {
    private DeviceBytes() {}

    /** Null when the first {@code n} bytes of {@code memory} all equal {@code value}, else the first that does not. */
    static String firstDifference(DeviceMemory memory, long n, byte value) {
        int chunk = 1 << 20;
        for (long at = 0; at < n; at += chunk) {
            int len = (int) Math.min(chunk, n - at);
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
