package org.cudaipc4j.coord.fd;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.testing.OpenDescriptors;
import org.cudaipc4j.testing.Waits;

/**
 * The other process of the descriptor tests. Modes:
 * <ul>
 *   <li>{@code receive SOCKET}: connects, receives one message, prints {@code PAYLOAD <text>} and for each descriptor
 *       {@code FD <its contents>}, closes them, then prints {@code LEFT <n>}: how many descriptors still refer to
 *       what was received.
 *   <li>{@code hold TEXT}: puts TEXT in a memfd, prints {@code HOLD <pid> <fd>}, then reads lines from stdin:
 *       {@code allow PID} lets PID take its descriptors ({@link PidFd#allowTakingBy}; prints {@code ALLOWED}),
 *       {@code take PID FD} does what the {@code take} mode does, {@code done} or the end of input ends it.
 *   <li>{@code take PID FD}: takes descriptor FD of process PID with {@link PidFd#take}; prints {@code TAKEN <its
 *       contents>} or {@code REFUSED <message>}.
 *   <li>{@code open-in-shutdown}: opens and closes a server, then exits; a shutdown hook of its own waits for the
 *       shutdown removals' hook to begin, opens another server and prints {@code OPENED <socket>} or
 *       {@code REFUSED <message>}.
 * </ul>
 */
public final class FdPeer {
    private FdPeer() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "receive" -> {
                java.util.Set<String> received = new java.util.LinkedHashSet<>();
                try (FdChannel channel = FdChannel.connect(Path.of(args[1]), Duration.ofSeconds(30));
                     FdMessage m = channel.receive(Duration.ofSeconds(30))) {
                    System.out.println("PAYLOAD " + new String(m.payload(), StandardCharsets.UTF_8));
                    for (OwnedFd fd : m.fds()) {
                        received.add(OpenDescriptors.target(fd.value()));
                        byte[] head = Files.readAllBytes(Path.of("/proc/self/fd/" + fd.value()));
                        System.out.println("FD " + new String(head, StandardCharsets.UTF_8));
                    }
                }
                int left = received.stream().mapToInt(t -> OpenDescriptors.referringTo(t).size()).sum();
                System.out.println("LEFT " + left);
            }
            case "hold" -> {
                int fd = LibcFiles.memfdCreate("held").value();
                Files.writeString(Path.of("/proc/self/fd/" + fd), args[1]);
                System.out.println("HOLD " + ProcessHandle.current().pid() + " " + fd);
                System.out.flush();
                var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !line.equals("done")) {
                    if (line.startsWith("allow ")) {
                        PidFd.allowTakingBy(Long.parseLong(line.substring(6)));
                        System.out.println("ALLOWED");
                    } else if (line.startsWith("take ")) {
                        String[] words = line.split(" ");
                        take(Long.parseLong(words[1]), Integer.parseInt(words[2]));
                    }
                    System.out.flush();
                }
            }
            case "take" -> take(Long.parseLong(args[1]), Integer.parseInt(args[2]));
            case "open-in-shutdown" -> {
                FdServer.open().close();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        // The hooks start in no set order: wait until the shutdown removals' hook has begun.
                        if (!Waits.until(10_000, org.cudaipc4j.coord.internal.ShutdownRemovals::shuttingDown)) {
                            System.out.println("NEVER the shutdown removals' hook did not begin in 10 s");
                            return;
                        }
                        System.out.println("OPENED " + FdServer.open().socket());
                    } catch (org.cudaipc4j.coord.CoordinationException e) {
                        System.out.println("REFUSED " + e.getMessage());
                    }
                    System.out.flush();
                }));
            }
            default -> throw new IllegalArgumentException(args[0] + HexFormat.of().toHexDigits(0));
        }
    }

    private static void take(long pid, int descriptor) throws java.io.IOException {
        try (OwnedFd fd = PidFd.take(pid, descriptor)) {
            System.out.println("TAKEN " + Files.readString(Path.of("/proc/self/fd/" + fd.value())));
        } catch (org.cudaipc4j.coord.CoordinationException e) {
            System.out.println("REFUSED " + e.getMessage());
        }
    }
}
