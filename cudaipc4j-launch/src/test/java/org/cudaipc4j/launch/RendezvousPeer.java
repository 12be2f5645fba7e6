package org.cudaipc4j.launch;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One Java rank in a process of its own, as {@code python/tests/rendezvous_peer.py} is one Python rank: the same
 * options, lines and commands ({@code descriptors N} with {@code --descriptors}, {@code bound PORT}, {@code joined
 * PAYLOAD_HEX}, {@code fault RANK KIND MESSAGE}, {@code barrier ok}, {@code closed}, {@code error MESSAGE} with exit
 * 3; commands {@code barrier} and {@code close}, and the end of stdin).
 */
public final class RendezvousPeer {
    private RendezvousPeer() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            a.put(args[i], args[i].equals("--descriptors") ? "" : args[++i]);
        }
        int rank = Integer.parseInt(a.get("--rank"));
        RendezvousOptions.Builder b = RendezvousOptions.builder(rank, Integer.parseInt(a.get("--size")),
                        new InetSocketAddress(a.getOrDefault("--host", "127.0.0.1"), Integer.parseInt(a.get("--port"))))
                .secret(a.getOrDefault("--secret", "").getBytes(StandardCharsets.UTF_8))
                .ncclVersion(Integer.parseInt(a.getOrDefault("--nccl", "0")))
                .payload(() -> HexFormat.of().parseHex(a.getOrDefault("--payload-hex", "")))
                .joinTimeout(seconds(a.getOrDefault("--join-timeout", "20")))
                .onBound(bound -> say("bound " + bound.getPort()));
        if (a.containsKey("--interval")) {
            b.heartbeatInterval(seconds(a.get("--interval")));
        }
        if (a.containsKey("--limit")) {
            b.silenceLimit(seconds(a.get("--limit")));
        }
        if (a.containsKey("--descriptors")) {
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                say("descriptors " + (fds.count() - 1)); // less the one that lists them
            }
        }
        RankGroup g;
        try {
            g = Rendezvous.join(b.build());
        } catch (RendezvousException e) {
            say("error " + e.getMessage());
            System.exit(3);
            return;
        }
        say("joined " + HexFormat.of().formatHex(g.payload()));
        g.onFault(f -> say("fault " + f.rank() + " " + f.kind() + " " + f.message()));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.strip().equals("close"); ) {
            if (line.strip().equals("barrier")) {
                try {
                    g.barrier(Duration.ofSeconds(20));
                    say("barrier ok");
                } catch (RendezvousException e) {
                    say("barrier failed " + e.getMessage());
                }
            }
        }
        g.close();
        say("closed");
    }

    private static Duration seconds(String s) {
        return Duration.ofNanos(Math.round(Double.parseDouble(s) * 1e9));
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
