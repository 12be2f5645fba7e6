package org.cudaipc4j.tool.simpleipc;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Wall-clock timestamps in microseconds since the epoch, comparable across processes of one host. */
public final class Clock {
    private Clock() {}

    public static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /** When this JVM's process started (the kernel's start time, about 10 ms resolution). */
    static long processStartMicros() {
        return ProcessHandle.current().info().startInstant()
                .map(i -> ChronoUnit.MICROS.between(Instant.EPOCH, i))
                .orElse(-1L);
    }
}
