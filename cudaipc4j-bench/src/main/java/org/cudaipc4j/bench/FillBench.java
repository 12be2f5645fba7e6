package org.cudaipc4j.bench;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdServer;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.tool.Sizes;

/**
 * Import latency and fill bandwidth through each way of sharing memory: this process allocates one buffer per size
 * and path (legacy {@code cuMemAlloc}, VMM, memory pool) on a device and exports it; a second JVM
 * ({@link FillBenchChild}) receives every descriptor with its file descriptors over a private socket, maps each
 * (timing the first import, and the median cached one once warm), and times {@code cuMemsetD8} and both fill
 * kernels on the mapping with CUDA events, against {@code cuMemsetD8} on memory of its own. Bandwidth counts the
 * bytes written.
 */
final class FillBench {
    static final List<IpcPath> PATHS = List.of(IpcPath.LEGACY, IpcPath.VMM_FD, IpcPath.POOL_FD);

    /** Per path and size: GB/s (1e9 bytes per second) of each method, and the import's times. */
    record Point(String path, long bytes, double firstImportMillis, double cachedImportMicros,
            Map<String, Double> gbPerSecond) {}

    record Result(String device, int iterations, List<Point> points) {
        /** Series label -> [bytes, GB/s] points, for the chart. */
        Map<String, List<double[]>> series() {
            Map<String, List<double[]>> out = new LinkedHashMap<>();
            for (Point p : points) {
                p.gbPerSecond().forEach((k, v) -> out.computeIfAbsent(
                        k.equals(FillBenchChild.LOCAL_MEMSET) ? k : p.path() + ": " + k, x -> new ArrayList<>())
                        .add(new double[] {p.bytes(), v}));
            }
            return out;
        }
    }

    private FillBench() {}

    static Result run(int ordinal, List<Long> sizes, int iterations, PrintStream out) {
        Cuda.init();
        Device device = Device.get(ordinal);
        try (Context context = Context.retainPrimary(device); FdServer server = FdServer.open()) {
            context.makeCurrent();
            Stream stream = Stream.create(context, true);
            MemoryPool pool = MemoryPool.create(context, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0);
            List<SharedMemoryExport> exports = new ArrayList<>();
            ByteBuffer payload = ByteBuffer.allocate(4 + PATHS.size() * sizes.size() * 260).order(ByteOrder.LITTLE_ENDIAN);
            List<Integer> fds = new ArrayList<>();
            try {
                payload.putInt(PATHS.size() * sizes.size());
                for (IpcPath path : PATHS) {
                    for (long size : sizes) {
                        DeviceMemory memory = switch (path) {
                            case LEGACY -> DeviceBuffer.allocate(context, size);
                            case VMM_FD -> VmmAllocation.create(context, size,
                                    Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR));
                            default -> pool.allocate(size, stream);
                        };
                        SharedMemoryExport export = SharedMemoryExport.of(memory);
                        exports.add(export);
                        byte[] d = export.descriptor().toBytes();
                        payload.putInt(d.length).put(d);
                        for (int fd : export.fileDescriptors()) {
                            fds.add(fd);
                        }
                    }
                }
                byte[] message = java.util.Arrays.copyOf(payload.array(), payload.position());
                CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
                    try (FdChannel channel = server.accept(Duration.ofMinutes(2))) {
                        channel.send(message, fds);
                        channel.receive(Duration.ofMinutes(30)).close(); // "done": the child unmapped everything
                    }
                });
                ToolLauncher.Outcome o = ToolLauncher.runMain(FillBenchChild.class.getName(), List.of(
                        Integer.toString(ordinal), Integer.toString(iterations), server.socket().toString()), Map.of());
                o.requirePassed("fill benchmark child");
                served.join();
                List<Point> points = FillBenchChild.parse(o.stdout());
                for (Point p : points) {
                    StringBuilder sb = new StringBuilder();
                    p.gbPerSecond().forEach((k, v) -> sb.append(String.format(Locale.ROOT, "  %s %.0f GB/s", k, v)));
                    out.printf(Locale.ROOT, "Fill %-8s via %-8s first import %.3f ms, cached %.2f us%s%n",
                            Sizes.format(p.bytes()), p.path(), p.firstImportMillis(), p.cachedImportMicros(), sb);
                }
                return new Result(device.name(), iterations, points);
            } finally {
                Closeables.closeAll(exports.reversed().toArray(AutoCloseable[]::new));
                // The context frees the buffers, the allocations and the pool.
            }
        }
    }
}
