package org.cudaipc4j.tool.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.tool.kernels.BuiltinKernels;

/**
 * A fill kernel's own GPU time at one size, launched as the rotation launches it: back to back on one stream over
 * memory of this process, timed by CUDA events (the gap between two launches included). The median of
 * {@value #BATCHES} batches, after a warm-up.
 */
final class KernelTime {
    static final int BATCHES = 5;

    private KernelTime() {}

    /** Microseconds per launch of each named kernel ({@code vec16}, {@code simple}) for {@code bytes}. */
    static Map<String, Double> micros(int ordinal, long bytes, List<String> kernels, int launchesPerBatch) {
        Cuda.init();
        Map<String, Double> micros = new LinkedHashMap<>();
        try (Context context = Context.retainPrimary(Device.get(ordinal))) {
            context.makeCurrent();
            try (Stream stream = Stream.create(context, true);
                 DeviceBuffer buffer = DeviceBuffer.allocate(context, bytes);
                 BuiltinKernels loaded = BuiltinKernels.load(context);
                 Event start = Event.create(context);
                 Event stop = Event.create(context)) {
                for (String kernel : kernels) {
                    BuiltinKernels.Fill fill = BuiltinKernels.Fill.valueOf(kernel.toUpperCase(java.util.Locale.ROOT));
                    for (int i = 0; i < launchesPerBatch; i++) {
                        loaded.fill(fill, buffer, (byte) i, stream);
                    }
                    double[] batches = new double[BATCHES];
                    for (int b = 0; b < BATCHES; b++) {
                        start.record(stream);
                        for (int i = 0; i < launchesPerBatch; i++) {
                            loaded.fill(fill, buffer, (byte) i, stream);
                        }
                        stop.record(stream);
                        stop.synchronize();
                        batches[b] = stop.elapsedMillis(start) * 1000 / launchesPerBatch;
                    }
                    Arrays.sort(batches);
                    micros.put(kernel, batches[BATCHES / 2]);
                }
            }
        }
        return micros;
    }
}
