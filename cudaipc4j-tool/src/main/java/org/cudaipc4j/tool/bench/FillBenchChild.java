package org.cudaipc4j.tool.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.tool.kernels.BuiltinKernels;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.IpcMappedMemory;
import org.cudaipc4j.cuda.IpcMemHandle;
import org.cudaipc4j.tool.kernels.MismatchCount;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.tool.simpleipc.DriverStartUp;

/**
 * The measuring side of {@link FillBench}, run in its own JVM so the handles are opened in a process other than
 * the exporter's. Arguments: {@code device iterations size:hexHandle...}. Prints one {@code FILL} line per size.
 */
public final class FillBenchChild {
    static final String MEMSET = "cuMemsetD8";
    static final String VEC16 = "fill_bytes_vec16 kernel";
    static final String SIMPLE = "fill_bytes kernel (sample's)";
    private static final int WARMUP = 3;

    private FillBenchChild() {}

    public static void main(String[] args) {
        int ordinal = Integer.parseInt(args[0]);
        int iterations = Integer.parseInt(args[1]);
        // As in a simpleIPC child: handles linked and warmed while the driver starts, so that the first open times
        // the driver's work, not the JVM's first call through the by-value handle.
        DriverStartUp.prelinkInBackground();
        Cuda.init();
        try (Context context = Context.retainPrimary(Device.get(ordinal))) {
            context.makeCurrent();
            try (Stream stream = Stream.create(context, true);
                 BuiltinKernels kernels = BuiltinKernels.load(context);
                 Event start = Event.create(context);
                 Event stop = Event.create(context)) {
                for (int i = 2; i < args.length; i++) {
                    String[] sizeAndHandle = args[i].split(":", 2);
                    long bytes = Long.parseLong(sizeAndHandle[0]);
                    IpcMemHandle handle = IpcMemHandle.fromHex(sizeAndHandle[1]);
                    long t0 = System.nanoTime();
                    try (IpcMappedMemory memory = handle.open(context, bytes, true)) {
                        double openMillis = (System.nanoTime() - t0) / 1e6;
                        Map<String, Double> gbps = new LinkedHashMap<>();
                        gbps.put(MEMSET, time(bytes, iterations, stream, start, stop,
                                v -> memory.memsetAsync(v, stream)));
                        gbps.put(VEC16, time(bytes, iterations, stream, start, stop,
                                v -> kernels.fill(BuiltinKernels.Fill.VEC16, memory, v, stream)));
                        gbps.put(SIMPLE, time(bytes, iterations, stream, start, stop,
                                v -> kernels.fill(BuiltinKernels.Fill.SIMPLE, memory, v, stream)));
                        // The last fill wrote (iterations + WARMUP - 1): the measured kernels must have written it.
                        byte last = (byte) (iterations + WARMUP - 1);
                        MismatchCount check = kernels.countMismatches(memory, last, stream);
                        if (!check.clean()) {
                            throw new IllegalStateException("fill of " + bytes + " bytes left " + check.count()
                                    + " wrong bytes, first at " + check.firstBadOffset());
                        }
                        StringBuilder line = new StringBuilder("FILL ").append(bytes).append(' ').append(openMillis);
                        gbps.forEach((k, v) -> line.append('\t').append(k).append('=').append(v));
                        System.out.println(line);
                    }
                }
            }
        }
    }

    private interface Fill {
        void launch(byte value);
    }

    /** Bytes written per second over {@code iterations} fills, after warm-up, timed by CUDA events; in GB/s. */
    private static double time(long bytes, int iterations, Stream stream, Event start, Event stop, Fill fill) {
        for (int i = 0; i < WARMUP; i++) {
            fill.launch((byte) i);
        }
        start.record(stream);
        for (int i = 0; i < iterations; i++) {
            fill.launch((byte) (WARMUP + i));
        }
        stop.record(stream);
        stop.synchronize();
        double seconds = stop.elapsedMillis(start) / 1e3;
        return bytes * (double) iterations / seconds / 1e9;
    }

    static List<FillBench.Point> parse(String stdout) {
        List<FillBench.Point> points = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (!line.startsWith("FILL ")) {
                continue;
            }
            String[] fields = line.split("\t");
            String[] head = fields[0].split(" ");
            Map<String, Double> gbps = new LinkedHashMap<>();
            for (int i = 1; i < fields.length; i++) {
                int eq = fields[i].lastIndexOf('=');
                gbps.put(fields[i].substring(0, eq), Double.parseDouble(fields[i].substring(eq + 1)));
            }
            points.add(new FillBench.Point(Long.parseLong(head[1]), Double.parseDouble(head[2]), gbps));
        }
        return points;
    }
}
