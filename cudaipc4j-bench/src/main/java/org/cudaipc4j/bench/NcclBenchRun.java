package org.cudaipc4j.bench;

import com.google.gson.Gson;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.MemberCommand;
import org.cudaipc4j.coord.Supervisor;
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
        String bench = NcclBench.class.getName();
        figures.addAll(ranks(2, devices, bench, List.of("sendrecv", sizeList, "" + ops, "" + repeats), out));
        for (int n : rankCounts) {
            if (n >= 2) {
                figures.addAll(ranks(n, devices, bench, List.of("allreduce", sizeList, "" + ops, "" + repeats), out));
            }
        }
        return figures;
    }

    /** How long one group of ranks may run. */
    private static final Duration LIMIT = Duration.ofMinutes(10);

    /**
     * Runs {@code n} ranks of {@code mainClass} ({@link NcclBench}) to their end and returns the figures rank 0
     * printed, each printed on {@code out} as it comes.
     *
     * @throws IllegalStateException when a rank fails
     */
    static List<Figure> ranks(int n, int devices, String mainClass, List<String> args, PrintStream out) {
        LocalRanks local = new LocalRanks(n, devices);
        List<Figure> figures = new CopyOnWriteArrayList<>();
        Gson gson = new Gson();
        Consumer<String> figureLines = line -> {
            if (line.startsWith("{")) {
                Figure f = gson.fromJson(line, Figure.class);
                figures.add(f);
                out.printf(Locale.ROOT, "NCCL %s, %d ranks, %s: %.1f us, %.3f GB/s (bus %.3f)%n",
                        f.op(), f.ranks(), Sizes.format(f.bytes()), f.us(), f.algGBps(), f.busGBps());
            }
        };
        List<MemberCommand> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            // Rank 0 prints the figures; what the others print on stdout (NCCL's own lines) is dropped.
            Consumer<String> lines = r == 0 ? figureLines : line -> {};
            ranks.add(local.rank(r, mainClass, args).withOutputLines(lines));
        }
        Supervisor.Options options = Supervisor.Options.defaults().withPrefixOutput(false);
        try (Supervisor supervisor = Supervisor.withoutBlock(n, options)) {
            supervisor.launch(ranks);
            Supervisor.Outcome outcome = supervisor.awaitAll(Deadline.after(LIMIT, "the NCCL bench's limit"));
            if (!outcome.ok()) {
                Supervisor.Failure f = outcome.failures().getFirst();
                throw new IllegalStateException("NCCL bench rank " + f.index() + " of " + n + " failed (" + f.reason()
                        + ")");
            }
        }
        return List.copyOf(figures);
    }
}
