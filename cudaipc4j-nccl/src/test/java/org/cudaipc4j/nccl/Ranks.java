package org.cudaipc4j.nccl;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Assumptions;

/**
 * Starts NCCL ranks as processes of their own on the one GPU: each with its own {@code NCCL_HOSTID}, so NCCL takes
 * them for separate hosts and connects them through its socket transport over loopback.
 */
final class Ranks {
    private Ranks() {}

    /** The NCCL of the tests ({@link Nccl#load()}); the test is skipped (failed where a GPU is required) without one. */
    static Nccl ncclOrSkip() {
        try {
            return Nccl.load();
        } catch (NcclUnavailableException e) {
            Assumptions.abort("no NCCL: " + e.getMessage());
            throw e;
        }
    }

    /** The environment that makes rank {@code rank} a host of its own to NCCL. */
    static Map<String, String> separateHost(int rank) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("NCCL_HOSTID", "cudaipc4j-test-host-" + rank);
        env.put("NCCL_P2P_DISABLE", "1");
        env.put("NCCL_SHM_DISABLE", "1");
        env.put("NCCL_SOCKET_IFNAME", "lo");
        env.put("NCCL_IB_DISABLE", "1");
        return env;
    }

    /** What one rank process printed and returned. */
    record Outcome(int rank, int exit, String stdout, String stderr) {
        String describe() {
            return "rank " + rank + " exit " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /** Runs {@code size} ranks of {@code mainClass} with {@code args(rank)}, all at once, and waits for all. */
    static List<Outcome> run(int size, Duration limit, Class<?> mainClass, IntFunction<List<String>> args,
                             Path logs) throws IOException, InterruptedException {
        return runWith(size, limit, mainClass, args, logs, r -> Map.of(), 0);
    }

    /**
     * As {@link #run}, with {@code environment(r)} added to process r's, whose NCCL rank (and host id) is
     * {@code r + firstRank}.
     */
    static List<Outcome> runWith(int size, Duration limit, Class<?> mainClass, IntFunction<List<String>> args,
                                 Path logs, IntFunction<Map<String, String>> environment, int firstRank)
            throws IOException, InterruptedException {
        List<Process> processes = new ArrayList<>();
        try {
            for (int r = 0; r < size; r++) {
                List<String> command = JavaProcess.command(mainClass, List.of(), args.apply(r).toArray(String[]::new));
                ProcessBuilder pb = new ProcessBuilder(command)
                        .redirectOutput(logs.resolve("rank" + r + ".out").toFile())
                        .redirectError(logs.resolve("rank" + r + ".err").toFile());
                pb.environment().putAll(separateHost(r + firstRank));
                pb.environment().putAll(environment.apply(r));
                processes.add(pb.start());
            }
            long deadline = System.nanoTime() + limit.toNanos();
            List<Outcome> outcomes = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                Process p = processes.get(r);
                long left = Math.max(0, deadline - System.nanoTime());
                if (!p.waitFor(left, TimeUnit.NANOSECONDS)) {
                    fail("rank " + r + " did not end within " + limit + ":\n" + read(logs, r));
                }
                outcomes.add(new Outcome(r, p.exitValue(), Files.readString(logs.resolve("rank" + r + ".out")),
                        Files.readString(logs.resolve("rank" + r + ".err"))));
            }
            return outcomes;
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }
    }

    private static String read(Path logs, int r) throws IOException {
        return Files.readString(logs.resolve("rank" + r + ".out")) + Files.readString(logs.resolve("rank" + r + ".err"));
    }
}
