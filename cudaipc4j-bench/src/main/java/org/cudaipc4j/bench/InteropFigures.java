package org.cudaipc4j.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorFormatException;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.tool.InputFiles;

/**
 * The figures of one {@code bench interop} reader process and their JSON line, in the shape that
 * {@code scripts/interop_bench_py.py} writes for Python's readers (its {@code summary} reads both): {@code impl},
 * {@code case}, {@code alloc} ({@code c} or {@code e} for torch's allocators, {@code pool}), {@code bytes},
 * {@code tensors}, then the case's times in microseconds and bandwidths in GB/s (1e9 bytes per second).
 */
final class InteropFigures {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private final Map<String, Object> fields = new LinkedHashMap<>();

    InteropFigures(String caseName, String alloc, long bytes, int tensors) {
        fields.put("impl", "java");
        fields.put("case", caseName);
        fields.put("alloc", alloc);
        fields.put("bytes", bytes);
        fields.put("tensors", tensors);
    }

    /** Names the reader that measured ({@code java}, {@code java-aot}), in place of {@code java}. */
    InteropFigures impl(String impl) {
        fields.put("impl", impl);
        return this;
    }

    /** {@return the wall clock now, in microseconds since the epoch: what a caller's exec time is compared with} */
    static long epochMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /**
     * Whether a JVM of these options runs with a JDK AOT cache it was made to use: {@code -XX:AOTCache=FILE} with
     * {@code -XX:AOTMode=on}, under which the JVM refuses to start where it cannot map the cache.
     *
     * @param jvmOptions the JVM's input arguments
     * @return true when both are there (the last {@code -XX:AOTMode} wins, as in the JVM)
     */
    static boolean startedWithAotCache(List<String> jvmOptions) {
        String mode = null;
        boolean cache = false;
        for (String o : jvmOptions) {
            if (o.startsWith("-XX:AOTMode=")) {
                mode = o.substring("-XX:AOTMode=".length());
            } else if (o.startsWith("-XX:AOTCache=") && o.length() > "-XX:AOTCache=".length()) {
                cache = true;
            }
        }
        return cache && "on".equals(mode);
    }

    /** Adds a figure, rounded to three decimals (nanosecond resolution for microseconds). */
    InteropFigures put(String name, double value) {
        fields.put(name, Math.round(value * 1000) / 1000.0);
        return this;
    }

    InteropFigures put(String name, long value) {
        fields.put(name, value);
        return this;
    }

    Map<String, Object> fields() {
        return fields;
    }

    /** One line of compact JSON, no newline. */
    String jsonLine() {
        return GSON.toJson(fields);
    }

    /** The median of {@code nanos} in microseconds; NaN when empty. */
    static double medianMicros(long[] nanos) {
        if (nanos.length == 0) {
            return Double.NaN;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        return median / 1e3;
    }

    /** GB/s (1e9 bytes per second) of {@code copies} copies of {@code bytes} each in {@code millis}. */
    static double gbPerSecond(long bytes, int copies, double millis) {
        if (!(millis > 0)) {
            throw new IllegalArgumentException("a timing of " + millis + " ms cannot give a bandwidth");
        }
        return bytes * (double) copies / (millis / 1e3) / 1e9;
    }

    /** The median of {@code values}. */
    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** The most a share file may hold: a descriptor is well under a kilobyte, a state dict's a few hundred. */
    static final int MAX_SHARE_FILE_BYTES = 64 << 20;

    /**
     * The descriptors of a share file, one JSON line each (blank lines skipped).
     *
     * @throws IllegalArgumentException in one line naming the file, and the line where a descriptor is refused
     */
    static List<Descriptor> readDescriptors(Path file) {
        List<String> lines;
        try {
            String text = InputFiles.utf8(file, MAX_SHARE_FILE_BYTES);
            if (text == null) {
                throw new IllegalArgumentException(file + " holds more than " + MAX_SHARE_FILE_BYTES + " bytes: not a"
                        + " share file");
            }
            lines = text.lines().toList();
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no such file: " + file);
        } catch (InputFiles.NotUtf8Exception e) {
            throw new IllegalArgumentException(file + " is not UTF-8 text");
        } catch (InputFiles.NotRegularFileException e) {
            throw new IllegalArgumentException(file + " is " + e.getMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + org.cudaipc4j.tool.Failures
                    .fileReason(e));
        }
        List<Descriptor> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            try {
                out.add(DescriptorJson.fromJson(lines.get(i)));
            } catch (DescriptorFormatException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": "
                        + String.valueOf(e.getMessage()).replace('\n', ' '));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no descriptor");
        }
        return out;
    }

    /** {@code c} or {@code e} for a torch share (the handle's type), else the descriptor's kind. */
    static String alloc(Descriptor d) {
        if (d.kind() == Descriptor.Kind.TORCH) {
            byte[] handle = d.torch().handle();
            if (handle != null && TorchHandle.parse(handle).type() == TorchHandle.Type.EXPANDABLE_SEGMENT) {
                return "e";
            }
            return "c";
        }
        return d.kind().code();
    }
}
