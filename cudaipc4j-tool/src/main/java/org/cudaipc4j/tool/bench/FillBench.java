package org.cudaipc4j.tool.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.tool.simpleipc.Sizes;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;

/**
 * Fill bandwidth through IPC-opened pointers: this process allocates one buffer per size on a device and exports
 * it; a second JVM ({@link FillBenchChild}) opens every handle, timing each open, and times cuMemsetD8 and both
 * fill kernels on the same memory with CUDA events. Bandwidth counts the bytes written.
 */
final class FillBench {
    /** Per-size figures: GB/s (1e9 bytes per second) of each method, and the handle's open time. */
    record Point(long bytes, double openMillis, Map<String, Double> gbPerSecond) {}

    record Result(String device, int iterations, List<Point> points) {
        /** Series label -> [bytes, GB/s] points, for the chart. */
        Map<String, List<double[]>> series() {
            Map<String, List<double[]>> out = new LinkedHashMap<>();
            for (Point p : points) {
                p.gbPerSecond().forEach((k, v) -> out.computeIfAbsent(k, x -> new ArrayList<>())
                        .add(new double[] {p.bytes(), v}));
            }
            return out;
        }
    }

    private FillBench() {}

    static Result run(int ordinal, List<Long> sizes, int iterations, PrintStream out) {
        Cuda.init();
        Device device = Device.get(ordinal);
        List<DeviceBuffer> buffers = new ArrayList<>();
        try (Context context = Context.retainPrimary(device)) {
            context.makeCurrent();
            try {
                List<String> args = new ArrayList<>(List.of(Integer.toString(ordinal), Integer.toString(iterations)));
                for (long size : sizes) {
                    DeviceBuffer b = DeviceBuffer.allocate(context, size);
                    buffers.add(b);
                    args.add(size + ":" + b.exportIpcHandle().hex());
                }
                ToolLauncher.Outcome o = ToolLauncher.runMain(FillBenchChild.class.getName(), args, java.util.Map.of());
                if (o.exitCode() != 0) {
                    throw new IllegalStateException("fill benchmark child exited " + o.exitCode() + ": "
                            + o.lastErrorLine());
                }
                List<Point> points = FillBenchChild.parse(o.stdout());
                for (Point p : points) {
                    StringBuilder sb = new StringBuilder();
                    p.gbPerSecond().forEach((k, v) -> sb.append(String.format("  %s %.0f GB/s", k, v)));
                    out.printf("Fill %-8s via IPC pointer: open %.3f ms%s%n", Sizes.format(p.bytes()), p.openMillis(), sb);
                }
                return new Result(device.name(), iterations, points);
            } finally {
                for (int i = buffers.size() - 1; i >= 0; i--) {
                    buffers.get(i).close();
                }
            }
        }
    }
}
