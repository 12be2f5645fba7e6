package org.cudaipc4j.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.launch.LaunchEnvironment;
import org.cudaipc4j.launch.RendezvousOptions;
import org.cudaipc4j.nccl.Communicator;
import org.cudaipc4j.nccl.CommunicatorOptions;
import org.cudaipc4j.nccl.DataType;
import org.cudaipc4j.nccl.Nccl;
import org.cudaipc4j.nccl.NcclRank;
import org.cudaipc4j.nccl.ReduceOp;
import org.cudaipc4j.nccl.Watchdog;
import org.cudaipc4j.simpleipc.nccl.NcclRotation;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.cudaipc4j.tool.Sizes;

/**
 * One rank of the NCCL benchmark, started by a launcher (see {@code scripts/nccl-bench.sh}, which runs torch's
 * counterpart, {@code scripts/nccl_bench_torch.py}, the same way): {@code sendrecv|allreduce BYTES[,BYTES...] OPS
 * REPEATS [blocking]}: a non-blocking communicator unless {@code blocking}. For each size: a warm-up, then REPEATS times: a one-element all-reduce to line the ranks up, OPS
 * operations enqueued back to back, and a wait for them. send/recv streams from rank 0 to rank 1 (the other ranks
 * idle); all-reduce runs on every rank, in place, float32. Rank 0 prints one JSON line per size with the median time
 * per operation, the algorithm bandwidth (bytes over time) and, for all-reduce, the bus bandwidth
 * ({@code 2 (n-1) / n} times that, as nccl-tests reports it).
 */
public final class NcclBench {
    private NcclBench() {}

    public static void main(String[] args) throws Exception {
        String op = args[0];
        long[] sizes = Arrays.stream(args[1].split(",")).mapToLong(Sizes::parseBytes)
                .toArray();
        int ops = Integer.parseInt(args[2]);
        int repeats = Integer.parseInt(args[3]);
        boolean blocking = args.length > 4 && args[4].equals("blocking");
        LaunchEnvironment launch = LaunchEnvironment.fromSystem();
        if (SimpleIpcSettings.NCCL_SEPARATE_HOSTS.get()) {
            NcclRotation.separateHost(launch.rank());
        }
        Nccl nccl = Nccl.load();
        Cuda.init();
        try (Context context = Context.retainPrimary(Device.get(launch.localRank() % Device.count()));
             NcclRank rank = NcclRank.join(context, nccl, RendezvousOptions.builder(launch),
                     CommunicatorOptions.DEFAULTS.withTimeout(Duration.ofMinutes(5)).withBlocking(blocking),
                     Duration.ofMillis(100),
                     Watchdog.exitProcess(System.err, Duration.ofMillis(500)));
             Stream stream = Stream.create(context, true)) {
            Communicator comm = rank.communicator();
            long largest = Arrays.stream(sizes).max().orElseThrow();
            try (DeviceBuffer buffer = DeviceBuffer.allocate(context, largest);
                 DeviceBuffer one = DeviceBuffer.allocate(context, 4)) {
                buffer.memset((byte) 0);
                one.memset((byte) 0);
                for (long bytes : sizes) {
                    var part = buffer.slice(0, bytes / 4 * 4);
                    Runnable work = () -> {
                        for (int i = 0; i < ops; i++) {
                            if (op.equals("allreduce")) {
                                comm.allReduce(part, part, DataType.FLOAT32, ReduceOp.SUM, stream);
                            } else if (comm.rank() == 0) {
                                comm.send(part, DataType.UINT8, 1, stream);
                            } else if (comm.rank() == 1) {
                                comm.recv(part, DataType.UINT8, 0, stream);
                            }
                        }
                    };
                    work.run(); // warm-up: connections, buffers
                    comm.await(stream);
                    List<Double> seconds = new ArrayList<>();
                    for (int r = 0; r < repeats; r++) {
                        comm.allReduce(one, one, DataType.FLOAT32, ReduceOp.SUM, stream);
                        comm.await(stream);
                        long start = System.nanoTime();
                        work.run();
                        comm.await(stream);
                        seconds.add((System.nanoTime() - start) / 1e9 / ops);
                    }
                    double median = median(seconds);
                    double algo = bytes / median / 1e9;
                    double bus = op.equals("allreduce") ? algo * 2 * (comm.size() - 1) / comm.size() : algo;
                    if (comm.rank() == 0) {
                        System.out.printf(Locale.ROOT, "{\"impl\": \"%s\", \"nccl\": \"%s\", \"op\": \"%s\", "
                                + "\"ranks\": %d, \"bytes\": %d, \"us\": %.2f, \"algGBps\": %.3f, \"busGBps\": %.3f, "
                                + "\"runs_us\": %s}%n", blocking ? "java-blocking" : "java", nccl.version(), op, comm.size(), bytes, median * 1e6, algo,
                                bus, seconds.stream().map(s -> String.format(Locale.ROOT, "%.2f", s * 1e6)).toList());
                    }
                }
            }
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
