package org.cudaipc4j.tool;

/** Exit codes of the tool; {@link #WAIVED} is the sample's EXIT_WAIVED. */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int FAILURE = 1;
    /** No IPC-capable device (no driver, no GPU, or none qualifies). */
    public static final int WAIVED = 2;
    /** Bad command line (BSD sysexits EX_USAGE). */
    public static final int USAGE = 64;
    /**
     * Stopped by SIGINT (Ctrl-C): what the JVM returns after its shutdown hooks ended the group, 128 plus the
     * signal's number, as a shell reports it.
     */
    public static final int INTERRUPTED = 128 + 2;
    /**
     * Standard output is a pipe whose reader is gone ({@code cudaipc4j ... | head -1}): the tool ends silently, as
     * a Unix tool that SIGPIPE ends, which the JVM ignores.
     */
    public static final int CLOSED_PIPE = 128 + 13;
    /** Stopped by SIGTERM: as {@link #INTERRUPTED}. */
    public static final int TERMINATED = 128 + 15;

    private ExitCodes() {}
}
