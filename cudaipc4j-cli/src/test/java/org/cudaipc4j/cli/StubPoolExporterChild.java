package org.cudaipc4j.cli;

import java.io.IOException;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.coord.fd.PidFd;

/**
 * The exporter side of a pool export for {@link ServiceReaderStubDriverTest}: holds a memfd as the pool's descriptor
 * (the stub driver imports any descriptor as a pool), lets any process take it where Yama asks for it
 * ({@code PR_SET_PTRACER_ANY}, as an exporter must allow its readers), prints {@code ready <pid> <fd>} and keeps it
 * until its stdin ends.
 */
public final class StubPoolExporterChild {
    private StubPoolExporterChild() {}

    public static void main(String[] args) throws IOException {
        PidFd.allowTakingBy(-1); // nothing to allow without Yama
        try (OwnedFd pool = OwnedFd.anonymousMemory("stub-pool", 4096)) {
            System.out.println("ready " + ProcessHandle.current().pid() + " " + pool.value());
            System.out.flush();
            System.in.readAllBytes(); // until the test closes our stdin
        }
    }
}
