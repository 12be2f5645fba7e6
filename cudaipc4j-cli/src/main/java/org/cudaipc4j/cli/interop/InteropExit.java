package org.cudaipc4j.cli.interop;

/**
 * The tool's exit codes as these commands return them. The tool's own constants live in its root package, which
 * registers these commands; importing them from here would make the two packages depend on each other, so the four
 * values are repeated (a test checks that they equal the tool's).
 */
final class InteropExit {
    /** Done. */
    static final int OK = 0;
    /** The input is fine but cannot be opened here (a kind the command line cannot open, a driver's refusal). */
    static final int FAILURE = 1;
    /** No CUDA driver or device: nothing to open on (the sample's EXIT_WAIVED). */
    static final int WAIVED = 2;
    /** Bad input: the argument is no descriptor or torch handle this reader accepts (BSD EX_USAGE). */
    static final int USAGE = 64;

    private InteropExit() {}
}
