package org.cudaipc4j.app;

/**
 * The one way the tool's processes end: flush standard output and error, then {@code System.exit}. By then every
 * resource was closed explicitly (CUDA contexts included); the CUDA driver's own at-exit handlers find nothing
 * left, and its interprocess bookkeeping (files it keeps in {@code /dev/shm}) is removed.
 */
public final class ProcessExit {
    private ProcessExit() {}

    /** Flushes standard output and error and ends the process with {@code code}; does not return. */
    public static void exit(int code) {
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }
}
