package org.cudaipc4j.coord;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Liveness of other processes by pid. A zombie (exited, not yet reaped) counts as dead. */
final class Pids {
    private static final Path PROC = Path.of("/proc");
    private static final boolean HAVE_PROC = Files.isDirectory(PROC.resolve("self"));

    private Pids() {}

    static long self() {
        return ProcessHandle.current().pid();
    }

    /** When {@code pid} started (epoch millis), or -1 when that cannot be told: tells a reused pid apart. */
    static long startMillis(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).map(java.time.Instant::toEpochMilli)
                .orElse(-1L);
    }

    /** True while {@code pid} names a process that has not exited. */
    static boolean isAlive(long pid) {
        if (pid <= 0) {
            return false;
        }
        if (!HAVE_PROC) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        try {
            byte[] stat = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("stat"));
            String s = new String(stat, StandardCharsets.US_ASCII);
            // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
            int close = s.lastIndexOf(')');
            if (close < 0 || close + 2 >= s.length()) {
                return true;
            }
            char state = s.charAt(close + 2);
            return state != 'Z' && state != 'X' && state != 'x';
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            // Raced with the process exiting (ESRCH surfaces as an I/O error).
            return Files.exists(PROC.resolve(Long.toString(pid)));
        }
    }

    /** True once the parent {@code expected} (our parent's pid when we looked) is gone or is no longer our parent. */
    static boolean parentGone(long expected) {
        return parentPid() != expected || !isAlive(expected);
    }

    /** The parent's pid, or -1 when it is unknown (the parent is gone and we were not re-parented yet). */
    static long parentPid() {
        return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    }
}
