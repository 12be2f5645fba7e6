package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.coord.fd.PidFd;

/**
 * The producer side of an expandable segment's shares for {@link TorchReaderStubDriverTest}: holds {@code args[0]}
 * memfds (the stub driver imports any descriptor as a chunk), lets any process take them where Yama asks for it
 * ({@code PR_SET_PTRACER_ANY}, as a torch producer must allow its readers), prints {@code ready <pid> <fd>...} and
 * keeps them until its stdin ends.
 */
public final class StubChunkProducerChild {
    private StubChunkProducerChild() {}

    public static void main(String[] args) throws IOException {
        int chunks = Integer.parseInt(args[0]);
        PidFd.allowTakingBy(-1); // PR_SET_PTRACER_ANY; nothing to allow without Yama
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
        fds.forEach(fd -> line.append(' ').append(fd));
        System.out.println(line);
        System.out.flush();
        System.in.readAllBytes(); // until the test closes our stdin
        fds.forEach(Libc::close);
    }
}
