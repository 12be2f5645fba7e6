package org.cudaipc4j.bench;

import com.google.gson.Gson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.simpleipc.nccl.LocalRanks;
import org.cudaipc4j.tool.Sizes;

/**
 * {@code bench --only nccl}: starts {@link NcclBench} ranks on this machine (each a host of its own to NCCL when
 * there are more ranks than devices) and collects rank 0's figures: send/recv between two ranks, all-reduce on each
 * rank count asked for, over the sizes asked for.
 */
public final class NcclBenchRun {
    private NcclBenchRun() {}

    /** One figure, as a rank 0 of {@link NcclBench} prints it. */
    public record Figure(String impl, String nccl, String op, int ranks, long bytes, double us, double algGBps,
                         double busGBps, List<Double> runs_us) {}

    /**
     * Runs send/recv (2 ranks) and all-reduce ({@code rankCounts} of 2 or more) over {@code sizes}: {@code ops}
     * operations per timing, {@code repeats} timings per size, the median kept. Prints each figure on {@code out}.
     *
     * @throws IllegalStateException when a rank fails, with what it printed
     */
    public static List<Figure> run(List<Integer> rankCounts, List<Long> sizes, int ops, int repeats, PrintStream out) {
        Cuda.init();
        int devices = Device.count();
        String sizeList = sizes.stream().map(String::valueOf).collect(Collectors.joining(","));
        List<Figure> figures = new ArrayList<>();
        figures.addAll(ranks(2, devices, List.of("sendrecv", sizeList, "" + ops, "" + repeats), out));
        for (int n : rankCounts) {
            if (n >= 2) {
                figures.addAll(ranks(n, devices, List.of("allreduce", sizeList, "" + ops, "" + repeats), out));
            }
        }
        return figures;
    }

    private static List<Figure> ranks(int n, int devices, List<String> args, PrintStream out) {
        LocalRanks local = new LocalRanks(n, devices);
        List<Process> processes = new ArrayList<>();
        List<Figure> figures = new ArrayList<>();
        Gson gson = new Gson();
        try {
            for (int r = 0; r < n; r++) {
                ProcessBuilder pb = local.rank(r, NcclBench.class.getName(), args)
                        .redirectError(ProcessBuilder.Redirect.INHERIT);
                if (r != 0) {
                    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
                }
                processes.add(pb.start());
            }
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(processes.getFirst().getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("{")) {
                        Figure f = gson.fromJson(line, Figure.class);
                        figures.add(f);
                        out.printf(java.util.Locale.ROOT, "NCCL %s, %d ranks, %s: %.1f us, %.3f GB/s (bus %.3f)%n",
                                f.op(), f.ranks(), Sizes.format(f.bytes()), f.us(), f.algGBps(), f.busGBps());
                    }
                }
            }
            for (int r = 0; r < n; r++) {
                Process p = processes.get(r);
                if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                    throw new IllegalStateException("NCCL bench rank " + r + " of " + n + " failed ("
                            + (p.isAlive() ? "still running" : "exit " + p.exitValue()) + ")");
                }
            }
            return figures;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }
    }
}
