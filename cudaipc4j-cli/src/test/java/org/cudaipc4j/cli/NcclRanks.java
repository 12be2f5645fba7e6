package org.cudaipc4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.Ports;

/** Ranks of {@code --transport nccl} started as independent processes, the way a launcher starts them. */
final class NcclRanks implements AutoCloseable {
    final List<Process> processes = new ArrayList<>();
    final Path logs;
    /** Rank 0's stdout lines as they come. */
    final LinkedBlockingQueue<String> rank0Lines = new LinkedBlockingQueue<>();
    private final StringBuilder rank0Out = new StringBuilder();
    private CompletableFuture<Void> rank0Reader;

    private NcclRanks(Path logs) {
        this.logs = logs;
    }

    /** The command that runs the tool in a fresh JVM on this test's class path. */
    static List<String> toolCommand(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(JavaProcess.classPath());
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Starts {@code size} ranks with a torchrun-style environment ({@code RANK}, {@code WORLD_SIZE},
     * {@code LOCAL_RANK}, {@code MASTER_ADDR}, {@code MASTER_PORT}), each a host of its own to NCCL, plus
     * {@code extra(rank)}.
     */
    static NcclRanks torchrunStyle(int size, Path logs, java.util.function.IntFunction<Map<String, String>> extra,
                                   String... args) throws IOException {
        NcclRanks ranks = new NcclRanks(logs);
        int masterPort = Ports.freeLoopbackPortPair();
        for (int r = 0; r < size; r++) {
            ProcessBuilder pb = new ProcessBuilder(toolCommand(args))
                    .redirectError(logs.resolve("rank" + r + ".err").toFile());
            if (r != 0) {
                pb.redirectOutput(logs.resolve("rank" + r + ".out").toFile());
            }
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> k.startsWith("OMPI_") || k.startsWith("SLURM_") || k.startsWith("CUDAIPC4J_R"));
            env.put("RANK", "" + r);
            env.put("WORLD_SIZE", "" + size);
            env.put("LOCAL_RANK", "" + r);
            env.put("MASTER_ADDR", "127.0.0.1");
            env.put("MASTER_PORT", "" + masterPort);
            env.put("CUDAIPC4J_NCCL_SEPARATE_HOSTS", "1");
            env.putAll(extra.apply(r));
            ranks.processes.add(pb.start());
        }
        Process zero = ranks.processes.getFirst();
        ranks.rank0Reader = CompletableFuture.runAsync(() -> {
            try (var reader = zero.inputReader()) {
                String line;
                while ((line = reader.readLine()) != null) {
                    synchronized (ranks.rank0Out) {
                        ranks.rank0Out.append(line).append('\n');
                    }
                    ranks.rank0Lines.add(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, r -> Thread.ofPlatform().daemon().start(r));
        return ranks;
    }

    /** Waits for rank 0 to print {@code line}; false when it ends or {@code seconds} pass first. */
    boolean awaitRank0(String line, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String next = rank0Lines.poll(100, TimeUnit.MILLISECONDS);
            if (next != null && next.equals(line)) {
                return true;
            }
            if (next == null && !processes.getFirst().isAlive() && rank0Lines.isEmpty()) {
                return false;
            }
        }
        return false;
    }

    String out(int rank) throws IOException {
        if (rank == 0) {
            rank0Reader.join();
            synchronized (rank0Out) {
                return rank0Out.toString();
            }
        }
        return Files.readString(logs.resolve("rank" + rank + ".out"));
    }

    String err(int rank) throws IOException {
        return Files.readString(logs.resolve("rank" + rank + ".err"));
    }

    String describe() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < processes.size(); r++) {
            Process p = processes.get(r);
            sb.append("rank ").append(r).append(p.isAlive() ? " running" : " exit " + p.exitValue()).append('\n');
            try {
                sb.append(r == 0 && p.isAlive() ? "" : out(r)).append(err(r));
            } catch (IOException e) {
                sb.append(e);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
