package org.cudaipc4j.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.ImportedMemory;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.simpleipc.DriverStartUp;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.simpleipc.kernels.MismatchCount;
import org.cudaipc4j.tool.ProcessExit;
import org.cudaipc4j.tool.ToolSettings;

/**
 * The measuring side of {@link FillBench}, run in its own JVM so the memory is mapped in a process other than the
 * exporter's. Arguments: {@code device iterations socket}. Prints one {@code FILL} line per path and size:
 * {@code FILL path bytes firstImportMs cachedImportUs} then tab-separated {@code method=GB/s}.
 */
public final class FillBenchChild {
    static final String LOCAL_MEMSET = "cuMemsetD8 on local memory";
    static final String MEMSET = "cuMemsetD8";
    static final String VEC16 = "fill_bytes_vec16 kernel";
    static final String SIMPLE = "fill_bytes kernel (sample's)";
    private static final int WARMUP = 3;

    private FillBenchChild() {}

    public static void main(String[] args) {
        ProcessExit.whenBenchGone(ToolSettings.BENCH_PID.get(),
                (pid, why) -> ProcessExit.exit(1)); // no bench, no one to report to
        int ordinal = Integer.parseInt(args[0]);
        int iterations = Integer.parseInt(args[1]);
        // As in a simpleIPC child: handles linked while the driver starts, so that the first import does not
        // link them.
        DriverStartUp.prelinkInBackground();
        Cuda.init();
        try (Context context = Context.retainPrimary(Device.get(ordinal));
             MemoryImporter importer = MemoryImporter.open(context, 0);
             FdChannel channel = FdChannel.connect(Path.of(args[2]), Duration.ofMinutes(2));
             FdMessage message = channel.receive(Duration.ofMinutes(2))) {
            context.makeCurrent();
            Stream stream = Stream.create(context, true);
            BuiltinKernels kernels = BuiltinKernels.load(context);
            Event start = Event.create(context);
            Event stop = Event.create(context);
            ByteBuffer payload = ByteBuffer.wrap(message.payload()).order(ByteOrder.LITTLE_ENDIAN);
            int count = payload.getInt();
            int nextFd = 0;
            Map<Long, DeviceBuffer> local = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                byte[] d = new byte[payload.getInt()];
                payload.get(d);
                SharedMemoryDescriptor descriptor = SharedMemoryDescriptor.fromBytes(d);
                int[] fds = new int[descriptor.fileDescriptorCount()];
                for (int k = 0; k < fds.length; k++) {
                    fds[k] = message.fds().get(nextFd++).value();
                }
                long bytes = descriptor.bytes();
                long t0 = System.nanoTime();
                ImportedMemory memory = importer.map(descriptor, fds);
                long t1 = System.nanoTime();
                double cachedMicros = cachedImportMicros(importer, descriptor, fds);
                DeviceBuffer own = local.computeIfAbsent(bytes, b -> DeviceBuffer.allocate(context, b));
                Map<String, Double> gbps = new LinkedHashMap<>();
                gbps.put(LOCAL_MEMSET, time(bytes, iterations, stream, start, stop, v -> own.memsetAsync(v, stream)));
                gbps.put(MEMSET, time(bytes, iterations, stream, start, stop, v -> memory.memsetAsync(v, stream)));
                gbps.put(VEC16, time(bytes, iterations, stream, start, stop,
                        v -> kernels.fill(BuiltinKernels.Fill.VEC16, memory, v, stream)));
                gbps.put(SIMPLE, time(bytes, iterations, stream, start, stop,
                        v -> kernels.fill(BuiltinKernels.Fill.SIMPLE, memory, v, stream)));
                // The last fill wrote (iterations + WARMUP - 1): the measured kernels must have written it.
                byte last = (byte) (iterations + WARMUP - 1);
                MismatchCount check = kernels.countMismatches(memory, last, stream);
                if (!check.clean()) {
                    throw new IllegalStateException("fill of " + bytes + " bytes via " + descriptor.path()
                            .displayName() + " left " + check.count() + " wrong bytes");
                }
                memory.close();
                StringBuilder line = new StringBuilder("FILL ").append(descriptor.path().displayName()).append(' ')
                        .append(bytes).append(' ').append((t1 - t0) / 1e6).append(' ').append(cachedMicros);
                gbps.forEach((k, v) -> line.append('\t').append(k).append('=').append(v));
                System.out.println(line);
            }
            channel.send("done".getBytes(java.nio.charset.StandardCharsets.UTF_8), List.of());
        }
    }

    /**
     * A cached import's cost once the code is warm, as in a program that maps the same export again and again: the
     * median of {@value #CACHED_SAMPLES} map-and-close pairs after as many unmeasured ones.
     */
    private static double cachedImportMicros(MemoryImporter importer, SharedMemoryDescriptor descriptor, int[] fds) {
        long[] samples = new long[CACHED_SAMPLES];
        for (int i = -CACHED_SAMPLES; i < CACHED_SAMPLES; i++) {
            long t0 = System.nanoTime();
            importer.map(descriptor, fds).close();
            long t = System.nanoTime() - t0;
            if (i >= 0) {
                samples[i] = t;
            }
        }
        java.util.Arrays.sort(samples);
        return samples[CACHED_SAMPLES / 2] / 1e3;
    }

    private static final int CACHED_SAMPLES = 1000;

    /** Bytes written per second over {@code iterations} fills, after warm-up, timed by CUDA events; in GB/s. */
    private static double time(long bytes, int iterations, Stream stream, Event start, Event stop,
            KernelTime.Launch fill) {
        for (int i = 0; i < WARMUP; i++) {
            fill.launch((byte) i);
        }
        double seconds = KernelTime.backToBackMillis(iterations, WARMUP, stream, start, stop, fill) / 1e3;
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
            points.add(new FillBench.Point(head[1], Long.parseLong(head[2]), Double.parseDouble(head[3]),
                    Double.parseDouble(head[4]), gbps));
        }
        return points;
    }
}
