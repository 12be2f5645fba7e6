package org.cudaipc4j.coord;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * Random bytes straight from the kernel ({@code /dev/urandom}). {@link SecureRandom} reads the same source but
 * first sets up the security providers, which costs tens of milliseconds in a fresh JVM: on the start-up path of
 * every process of a group. Falls back to {@link SecureRandom} where the device cannot be read.
 */
final class Entropy {
    private static final String SOURCE = "/dev/urandom";

    private Entropy() {}

    static void nextBytes(byte[] out) {
        try (InputStream in = new FileInputStream(SOURCE)) {
            if (in.readNBytes(out, 0, out.length) == out.length) {
                return;
            }
        } catch (IOException | SecurityException e) {
            // Fall through to the provider.
        }
        new SecureRandom().nextBytes(out);
    }

    static long nextLong() {
        byte[] b = new byte[Long.BYTES];
        nextBytes(b);
        return ByteBuffer.wrap(b).getLong();
    }
}
