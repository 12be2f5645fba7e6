package org.cudaipc4j.bench;

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
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;

/**
 * A fill kernel's own GPU time at one size, launched as the rotation launches it: back to back on one stream over
 * memory of this process, timed by CUDA events (the gap between two launches included). The median of
 * {@value #BATCHES} batches, after a warm-up.
 */
final class KernelTime {
    static final int BATCHES = 5;

    private KernelTime() {}

    /** Enqueues one launch that writes {@code value}. */
    interface Launch {
        void launch(byte value);
    }

    /**
     * Milliseconds of GPU time, by CUDA events on {@code stream}, for {@code launches} launches back to back, the
     * i-th writing {@code firstValue + i}; waits for them.
     */
    static double backToBackMillis(int launches, int firstValue, Stream stream, Event start, Event stop,
            Launch launch) {
        start.record(stream);
        for (int i = 0; i < launches; i++) {
            launch.launch((byte) (firstValue + i));
        }
        stop.record(stream);
        stop.synchronize();
        return stop.elapsedMillis(start);
    }

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
                    BuiltinKernels.Fill fill = BuiltinKernels.Fill.parse(kernel);
                    Launch launch = value -> loaded.fill(fill, buffer, value, stream);
                    for (int i = 0; i < launchesPerBatch; i++) {
                        launch.launch((byte) i);
                    }
                    double[] batches = new double[BATCHES];
                    for (int b = 0; b < BATCHES; b++) {
                        batches[b] = backToBackMillis(launchesPerBatch, 0, stream, start, stop, launch) * 1000
                                / launchesPerBatch;
                    }
                    Arrays.sort(batches);
                    micros.put(kernel, batches[BATCHES / 2]);
                }
            }
        }
        return micros;
    }
}
