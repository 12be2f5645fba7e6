package org.cudaipc4j.interop.torch;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A reader JVM for {@link LeaseWatcherTest}: leases slots {@code 0..n-1} of a counter file, says
 * {@code ready <watcher pid> <book path>}, then on the line {@code close} closes its leases and says {@code closed},
 * on {@code exit} exits without closing; the test may kill it instead.
 */
public final class LeaseHolder {
    private LeaseHolder() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String name = args[1];
        int n = Integer.parseInt(args[2]);
        TorchLeases leases = TorchLeases.start(dir, true, 64);
        for (int i = 0; i < n; i++) {
            leases.acquire(new TorchStorageKey("c:" + i, 0, 0, 1), name, i);
        }
        System.out.println("ready " + leases.watcherPid().orElseThrow() + " " + leases.bookPath());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line = in.readLine();
        if ("close".equals(line)) {
            leases.close();
            System.out.println("closed");
            System.out.flush();
        } else if ("exit".equals(line)) {
            Runtime.getRuntime().halt(0);
        }
    }
}
