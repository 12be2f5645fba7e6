package org.cudaipc4j.simpleipc;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/** Wall-clock timestamps in microseconds since the epoch, comparable across processes of one host. */
public final class Clock {
    private Clock() {}

    public static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /**
     * When this run started: this JVM's process start, or later when the launcher that became this process first
     * built the jar or trained the start-up cache and said when it was done ({@code CUDAIPC4J_RUN_START}): the run's
     * time leaves those out. A child, which inherits the variable, started after it, so its own start wins.
     */
    static long runStartMicros() {
        return runStartMicros(processStartMicros(), SimpleIpcSettings.RUN_START.get(), micros());
    }

    /** {@link #runStartMicros()} from its parts; a mark that is not a time between the two is ignored. */
    static long runStartMicros(long processStart, String launcherMark, long now) {
        if (launcherMark == null || launcherMark.isEmpty() || launcherMark.length() > 18
                || !launcherMark.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return processStart;
        }
        long mark = Long.parseLong(launcherMark);
        return mark > processStart && mark <= now ? mark : processStart;
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
