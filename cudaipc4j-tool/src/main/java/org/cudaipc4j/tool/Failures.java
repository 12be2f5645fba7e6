package org.cudaipc4j.tool;

/**
 * How the tool words a failure. A class of its own, free of the CLI library, so that child processes use it
 * without loading picocli.
 */
public final class Failures {
    private Failures() {}

    /**
     * One line for a failure: the message, or the exception type where there is none, followed by the message of
     * each cause that it does not already contain (a wrapper such as "cannot write the report to X" then says why).
     */
    public static String oneLine(Throwable ex) {
        String msg = ex.getMessage();
        if (msg == null || msg.isBlank()) {
            msg = ex.getClass().getSimpleName();
        }
        StringBuilder line = new StringBuilder(msg);
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        seen.add(ex);
        for (Throwable cause = ex.getCause(); cause != null && seen.add(cause); cause = cause.getCause()) {
            String why = cause.getMessage();
            if (why != null && !why.isBlank() && !line.toString().contains(why)) {
                line.append(": ").append(why);
            }
        }
        return line.toString().replace('\n', ' ');
    }

    /**
     * A file failure's reason in words: for some the JDK's message is only the file's name ({@code
     * AccessDeniedException}, {@code NoSuchFileException}).
     */
    public static String fileReason(Exception e) {
        return e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : e instanceof java.nio.file.FileAlreadyExistsException f
                        ? f.getFile() + " is in the way (not a folder)"
                : e instanceof java.nio.file.NoSuchFileException ? "no such file or folder"
                : e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                : e instanceof java.nio.charset.CharacterCodingException ? "not UTF-8 text"
                : String.valueOf(e.getMessage());
    }

    /** What every waived result's line starts with, on standard error. */
    public static final String WAIVED_PREFIX = "cudaipc4j: waived: ";

    /**
     * {@return the one line, for standard error, of a result that is waived (exit {@link ExitCodes#WAIVED}): the
     * same form for every command, so that standard output carries only results}
     *
     * @param reason what cannot run here and why
     */
    public static String waived(String reason) {
        return WAIVED_PREFIX + reason.replace('\n', ' ');
    }

    /**
     * The one way a command says that it cannot run here: where there is a {@code reason}, writes the waived line
     * ({@link #waived}: {@code what} followed by the reason) to {@code err}.
     *
     * @param err the command's standard error
     * @param what what is waived, as the line's start (e.g. {@code "bench interop: "})
     * @param reason why it cannot run here, or empty when it can (e.g. the CUDA driver's unavailable reason)
     * @return {@link ExitCodes#WAIVED} where there is a reason, else empty
     */
    public static java.util.OptionalInt waiveIf(java.io.PrintWriter err, String what,
            java.util.Optional<String> reason) {
        if (reason.isEmpty()) {
            return java.util.OptionalInt.empty();
        }
        err.println(waived(what + reason.get()));
        err.flush();
        return java.util.OptionalInt.of(ExitCodes.WAIVED);
    }

    /** Whether stack traces go with the one-line errors ({@code CUDAIPC4J_DEBUG=1}). */
    public static boolean debug() {
        return ToolSettings.DEBUG.get();
    }
}
