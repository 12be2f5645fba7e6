package org.cudaipc4j.coord;

import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.base.LibcProcesses;

/**
 * Ending this process in the ways the JDK has no API for. {@link #now} ends it at once, as a killed process ends:
 * for a member whose group failed while native work it cannot cancel is still pending (a stream that waits for a
 * record a dead sibling never ran), which an orderly exit, or a native library's at-exit handler, would wait for.
 * {@link #silenceStandardStreams} sends what the JVM itself prints on its way out to {@code /dev/null}.
 */
public final class ProcessEnd {
    private ProcessEnd() {}

    /**
     * Ends this process at once with {@code status} (libc's {@code _exit}): no shutdown hook and no at-exit handler
     * of the JVM or of a native library runs; the kernel reclaims what the process held. Does not return.
     *
     * @param status the exit status
     */
    public static void now(int status) {
        LibcProcesses.exitNow(status);
    }

    /**
     * Points file descriptors 1 and 2 (standard output and error) at {@code /dev/null}, for the lines the JVM itself
     * writes after the program's own. Java's {@code System.out} and {@code System.err} write there too afterwards.
     *
     * @return whether both now point at {@code /dev/null}
     */
    public static boolean silenceStandardStreams() {
        // Not close-on-exec: where 1 or 2 was closed it gets this very descriptor, which must stay inherited.
        int devNull = LibcFiles.open("/dev/null", LibcFiles.O_WRONLY, 0).value();
        if (devNull < 0) {
            return false;
        }
        boolean silenced = true;
        for (int standard = 1; standard <= 2; standard++) {
            silenced &= LibcFiles.dup2(devNull, standard) == standard; // the copies are inherited, as 1 and 2 are
        }
        if (devNull > 2) {
            Libc.close(devNull);
        }
        return silenced;
    }
}
