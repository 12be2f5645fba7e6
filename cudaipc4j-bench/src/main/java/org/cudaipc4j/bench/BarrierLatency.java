package org.cudaipc4j.bench;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.cudaipc4j.coord.Barrier;
import org.cudaipc4j.coord.ChildRuntime;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.ProcessStatus;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.coord.Supervisor;

/**
 * Benchmark of the {@link Barrier} across real processes: {@code processes} child JVMs started by a
 * {@link Supervisor} run {@code warmup} unmeasured rounds, then {@code rounds} measured ones, each timing every
 * {@link Barrier#await()} (entry to exit) with {@link System#nanoTime()}. Each child writes its samples into a
 * shared result segment; the parent pools all processes' samples and reports median, p99, min, max and mean in
 * microseconds. Every child JVM is started and past a first, unmeasured barrier before warm-up begins, so JVM
 * start-up is not measured.
 *
 * <p>{@link #main} prints results for 2, 4, 8 and 16 processes (arguments: {@code [rounds [warmup]]}).
 */
public final class BarrierLatency {
    private static final String CHILD = "--child";

    private BarrierLatency() {}

    /**
     * Latency of one barrier round as seen by one process, pooled over every process and measured round.
     *
     * @param processes   group size
     * @param rounds      measured rounds per process
     * @param samples     number of samples pooled (processes x rounds)
     * @param wall        time from starting the children to their exit
     */
    public record Result(int processes, int rounds, long samples, double medianMicros, double p99Micros,
            double minMicros, double maxMicros, double meanMicros, Duration wall) {
        /** One line, e.g. {@code " 8 processes: median 3.1 us, p99 12.0 us, min 1.2 us, max 250.4 us ..."}. */
        public String describe() {
            return String.format(Locale.ROOT,
                    "%3d processes: median %8.1f us, p99 %8.1f us, min %7.1f us, max %9.1f us, mean %8.1f us"
                            + " (%,d rounds, %,d samples, %.1f s wall)",
                    processes, medianMicros, p99Micros, minMicros, maxMicros, meanMicros, rounds, samples,
                    wall.toMillis() / 1000.0);
        }
    }

    /** Measures with children's output passed to this process's standard streams. */
    public static Result measure(int processes, int rounds, int warmup) {
        return measure(processes, rounds, warmup, Supervisor.Options.defaults());
    }

    /**
     * Measures the barrier among {@code processes} child JVMs. Like every parent start, it first removes the
     * segments of groups whose parent was killed ({@link SharedSegment#reapStale()}).
     *
     * @throws CoordinationException when a child fails (the message lists each failure)
     */
    public static Result measure(int processes, int rounds, int warmup, Supervisor.Options options) {
        if (processes < 1 || processes > ControlBlock.MAX_PROCESSES) {
            throw new IllegalArgumentException("processes must be 1 to " + ControlBlock.MAX_PROCESSES + ", got "
                    + processes);
        }
        if (rounds < 1 || warmup < 0) {
            throw new IllegalArgumentException("need rounds >= 1 and warmup >= 0, got " + rounds + " and " + warmup);
        }
        long bytes = Math.multiplyExact((long) processes * rounds, Long.BYTES);
        SharedSegment.reapStale();
        Duration timeout = Duration.ofSeconds(120).plusMillis((long) (rounds + warmup) * processes / 4);
        long t0 = System.nanoTime();
        try (ControlBlock block = ControlBlock.create(processes, ControlBlock.NO_SLOT_DATA);
             SharedSegment results = SharedSegment.create("bench", bytes);
             Supervisor supervisor = new Supervisor(block, options)) {
            List<List<String>> args = new ArrayList<>();
            for (int i = 0; i < processes; i++) {
                args.add(List.of(CHILD, block.name(), Integer.toString(i), results.name(), Integer.toString(rounds),
                        Integer.toString(warmup)));
            }
            supervisor.start(BarrierLatency.class.getName(), args);
            Supervisor.Outcome outcome = supervisor.awaitAll(timeout);
            Duration wall = Duration.ofNanos(System.nanoTime() - t0);
            if (!outcome.ok()) {
                StringBuilder msg = new StringBuilder("barrier benchmark with " + processes + " processes failed:");
                for (Supervisor.Failure f : outcome.failures()) {
                    msg.append(" process ").append(f.index()).append(" (").append(f.reason()).append(");");
                }
                throw new CoordinationException(msg.substring(0, msg.length() - 1));
            }
            long[] samples = results.memory().toArray(ValueLayout.JAVA_LONG);
            return summarize(processes, rounds, samples, wall);
        }
    }

    static Result summarize(int processes, int rounds, long[] nanos, Duration wall) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (long v : sorted) {
            sum += v;
        }
        return new Result(processes, rounds, sorted.length, percentile(sorted, 0.50) / 1e3,
                percentile(sorted, 0.99) / 1e3, sorted[0] / 1e3, sorted[sorted.length - 1] / 1e3,
                sum / sorted.length / 1e3, wall);
    }

    /** Nearest-rank percentile of sorted values. */
    static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    /** Prints results for 2, 4, 8 and 16 processes; {@code [rounds [warmup]]}, default 20000 and 2000. */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals(CHILD)) {
            System.exit(child(args));
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        System.out.printf(Locale.ROOT, "Barrier round trip across processes on %d CPUs (%s %s, %s)%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"),
                System.getProperty("os.arch"), Runtime.version());
        for (int n : new int[] {2, 4, 8, 16}) {
            System.out.println(measure(n, rounds, warmup).describe());
        }
    }

    private static int child(String[] args) {
        String segment = args[1];
        int index = Integer.parseInt(args[2]);
        String resultName = args[3];
        int rounds = Integer.parseInt(args[4]);
        int warmup = Integer.parseInt(args[5]);
        try (ChildRuntime rt = ChildRuntime.join(segment, ControlBlock.NO_SLOT_DATA, index);
             SharedSegment results = SharedSegment.open(resultName)) {
            Barrier barrier = rt.block().barrier(index, Duration.ofSeconds(60));
            rt.setStatus(ProcessStatus.RUNNING);
            // Start line: every JVM is up before anything is timed.
            barrier.await();
            for (int i = 0; i < warmup; i++) {
                barrier.await();
            }
            long[] samples = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                barrier.await();
                samples[r] = System.nanoTime() - t0;
            }
            java.lang.foreign.MemorySegment.copy(samples, 0, results.memory(), ValueLayout.JAVA_LONG,
                    (long) index * rounds * Long.BYTES, rounds);
            return 0;
        } catch (CoordinationException e) {
            System.err.println("process " + index + ": " + e.getMessage());
            return 1;
        }
    }
}
