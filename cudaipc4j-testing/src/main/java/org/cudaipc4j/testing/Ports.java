package org.cudaipc4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports on the loopback address that were free a moment ago, for servers that a test's processes start. */
public final class Ports {
    private Ports() {}

    /** {@return a port on the loopback address that was free a moment ago} */
    public static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@return a port P on the loopback address such that P and P + 1 were free a moment ago: torchrun's
     * {@code MASTER_PORT}, whose successor the ranks' rendezvous takes}
     */
    public static int freeLoopbackPortPair() {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int p = first.getLocalPort();
                if (p == 65535) {
                    continue;
                }
                try (ServerSocket second = new ServerSocket(p + 1, 1, InetAddress.getLoopbackAddress())) {
                    return p;
                } catch (IOException taken) {
                    // try another
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no two free consecutive ports on 127.0.0.1");
    }
}
