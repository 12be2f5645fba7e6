package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdServer;
import org.cudaipc4j.coord.fd.PidFd;

/**
 * The producer side of an expandable segment's shares for {@link TorchReaderStubDriverTest}: holds {@code args[0]}
 * memfds (the stub driver imports any descriptor as a chunk), lets any process take them where Yama asks for it
 * ({@code PR_SET_PTRACER_ANY}, as a torch producer must allow its readers), prints {@code ready <pid> <fd>...} and
 * keeps them until its stdin ends. With {@code socket} as {@code args[1]} it allows nobody and serves them instead:
 * prints {@code ready <pid> socket <path>} and sends its first client one message whose payload is the fd numbers
 * (as its handles name them, comma-separated) with the fds attached, as {@code cudaipc4j.sharing.send_share} does,
 * then closes its own, so that only the socket's copies name the chunks.
 */
public final class StubChunkProducerChild {
    private StubChunkProducerChild() {}

    public static void main(String[] args) throws IOException {
        int chunks = Integer.parseInt(args[0]);
        boolean socket = args.length > 1 && args[1].equals("socket");
        if (!socket) {
            PidFd.allowTakingBy(-1); // PR_SET_PTRACER_ANY; nothing to allow without Yama
        }
        List<Integer> fds = new ArrayList<>();
        for (int i = 0; i < chunks; i++) {
            Libc.Result fd = LibcFiles.memfdCreate("stub-chunk");
            if (fd.value() < 0) {
                System.out.println("memfd_create failed: " + Libc.strerror(fd.errno()));
                System.exit(1);
            }
            fds.add(fd.value());
        }
        StringBuilder line = new StringBuilder("ready ").append(ProcessHandle.current().pid());
        if (socket) {
            try (FdServer server = FdServer.open()) {
                System.out.println(line.append(" socket ").append(server.socket()));
                System.out.flush();
                try (FdChannel reader = server.accept(Duration.ofSeconds(60))) {
                    String numbers = String.join(",", fds.stream().map(String::valueOf).toList());
                    reader.send(numbers.getBytes(StandardCharsets.US_ASCII), fds);
                    // only the reader's copies name the chunks now: a reader that tried pidfd_getfd would fail
                    fds.forEach(Libc::close);
                    fds.clear();
                    System.in.readAllBytes(); // until the test closes our stdin
                }
            }
        } else {
            fds.forEach(fd -> line.append(' ').append(fd));
            System.out.println(line);
            System.out.flush();
            System.in.readAllBytes(); // until the test closes our stdin
        }
        fds.forEach(Libc::close);
    }
}
