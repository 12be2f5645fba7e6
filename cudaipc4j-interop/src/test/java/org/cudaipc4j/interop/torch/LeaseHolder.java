package org.cudaipc4j.interop.torch;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A reader JVM for {@link LeaseWatcherTest}, with the default leases: leases {@code n} slots of the counter files
 * named after {@code n}, {@value TorchCounterFile#SLOTS} of each in turn, says {@code ready <watcher pid> <book
 * path>}, then on the line {@code close} closes its leases and says {@code closed}, on {@code exit} exits without
 * closing; the test may kill it instead. Arguments: {@code <counter directory> <n> <counter name>...}.
 */
public final class LeaseHolder {
    private LeaseHolder() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        TorchLeases leases = TorchLeases.start(dir, true);
        for (int i = 0; i < n; i++) {
            leases.acquire(new TorchStorageKey("c:" + i, 0, 0, 1), args[2 + i / TorchCounterFile.SLOTS],
                    i % TorchCounterFile.SLOTS);
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
