package org.cudaipc4j.tool;

/** Exit codes of the tool; {@link #WAIVED} is the sample's EXIT_WAIVED. */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int FAILURE = 1;
    /** No IPC-capable device (no driver, no GPU, or none qualifies). */
    public static final int WAIVED = 2;
    /** Bad command line (BSD sysexits EX_USAGE). */
    public static final int USAGE = 64;

    private ExitCodes() {}
}
