package org.cudaipc4j.tool.simpleipc;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Wall-clock timestamps in microseconds since the epoch, comparable across processes of one host. */
public final class Clock {
    private Clock() {}

    public static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /**
     * When this JVM's process started, to about 10 ms: the kernel's start time in clock ticks since boot
     * ({@code /proc/self/stat}) against the time since boot ({@code /proc/uptime}). {@code ProcessHandle}'s start
     * instant adds the boot time in whole seconds, so it can be off by most of a second; -1 when neither is known.
     */
    static long processStartMicros() {
        try {
            long now = micros();
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            // Fields after the command's closing parenthesis start at field 3; the start time is field 22.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double startSeconds = Long.parseLong(fields[19]) / (double) CLOCK_TICKS_PER_SECOND;
            String uptime = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"));
            double upSeconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
            return now - Math.round((upSeconds - startSeconds) * 1e6);
        } catch (java.io.IOException | RuntimeException e) {
            return ProcessHandle.current().info().startInstant()
                    .map(i -> ChronoUnit.MICROS.between(Instant.EPOCH, i))
                    .orElse(-1L);
        }
    }

    /**
     * {@code micros} as seconds with two decimals, rounded half up as {@code "%.2f"} rounds: without a Formatter,
     * whose first use in a JVM costs milliseconds (on the way to the end of a run, where the summary line is).
     */
    static String seconds(long micros) {
        long centis = (Math.max(0, micros) + 5_000) / 10_000;
        long fraction = centis % 100;
        return new StringBuilder().append(centis / 100).append(fraction < 10 ? ".0" : ".").append(fraction)
                .toString();
    }

    /** USER_HZ, the unit of /proc's process times: 100 on every Linux ABI the driver runs on. */
    private static final int CLOCK_TICKS_PER_SECOND = 100;
}
