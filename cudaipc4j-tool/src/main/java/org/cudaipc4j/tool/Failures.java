package org.cudaipc4j.tool;

/**
 * How the tool words a failure. A class of its own, free of the CLI library, so that child processes use it
 * without loading picocli.
 */
public final class Failures {
    private Failures() {}

    /** One line for a failure: the message, or the exception type where there is none. */
    public static String oneLine(Throwable ex) {
        String msg = ex.getMessage();
        if (msg == null || msg.isBlank()) {
            msg = ex.getClass().getSimpleName();
        }
        return msg.replace('\n', ' ');
    }

    /** Whether stack traces go with the one-line errors ({@code CUDAIPC4J_DEBUG=1}). */
    public static boolean debug() {
        return "1".equals(System.getenv("CUDAIPC4J_DEBUG"));
    }
}
