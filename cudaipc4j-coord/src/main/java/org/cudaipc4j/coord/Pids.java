package org.cudaipc4j.coord;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Liveness of other processes by pid. A process counts as dead once every thread of it has ended: a zombie (exited,
 * not yet reaped) is dead, but not a process whose main thread has ended while others run on ({@code /proc} shows
 * it as a zombie too). When a JVM exits its main thread can end before the rest, and its last thread, which tears
 * down its memory, follows a while later; until then it is still exiting, and the kernel has not marked its exit (its
 * pidfd is not ready, its parent cannot reap it). Counting it dead only then lets the supervisor order deaths as the kernel
 * does: whoever reacts to one is ordered after it.
 */
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

    /** True while {@code pid} names a process that has not exited (some thread of it still runs). */
    static boolean isAlive(long pid) {
        if (pid <= 0) {
            return false;
        }
        if (!HAVE_PROC) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        try {
            String fields = statFields(pid);
            if (fields.isEmpty()) {
                return true;
            }
            char state = fields.charAt(0);
            if (state == 'X' || state == 'x') {
                return false;
            }
            // A zombie whose threads have all ended counts 1 thread (itself, until reaped); more: some still run.
            return state != 'Z' || threads(fields) > 1;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            // Raced with the process exiting (ESRCH surfaces as an I/O error).
            return Files.exists(PROC.resolve(Long.toString(pid)));
        }
    }

    /**
     * True while the kernel shows {@code pid} stopped: by a signal (SIGSTOP, SIGTSTP: state {@code T}) or by a tracer
     * such as a debugger ({@code t}). False for a process that runs, has ended, or cannot be looked at.
     */
    static boolean isStopped(long pid) {
        if (pid <= 0 || !HAVE_PROC) {
            return false;
        }
        try {
            String fields = statFields(pid);
            return !fields.isEmpty() && (fields.charAt(0) == 'T' || fields.charAt(0) == 't');
        } catch (IOException e) {
            return false; // gone, or going
        }
    }

    /**
     * {@code /proc/PID/stat} from field 3, the state, on ({@code "S 1 ..."}), or empty when it does not read as such.
     * The name before it ({@code "pid (comm) "}) may hold spaces and parentheses: the state follows the last ')'.
     */
    private static String statFields(long pid) throws IOException {
        byte[] stat = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("stat"));
        String s = new String(stat, StandardCharsets.US_ASCII);
        int close = s.lastIndexOf(')');
        return close < 0 || close + 2 >= s.length() ? "" : s.substring(close + 2);
    }

    /** num_threads (field 20 of /proc/PID/stat) from {@code fields}, the text from field 3 on; 1 if unreadable. */
    private static long threads(String fields) {
        String[] f = fields.split(" ");
        try {
            return f.length > 17 ? Long.parseLong(f[17]) : 1;
        } catch (NumberFormatException e) {
            return 1;
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
