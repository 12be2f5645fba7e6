package org.cudaipc4j.tool;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Entry point of the {@code cudaipc4j} tool. Without a sub-command it runs the simpleIPC parent; sub-commands
 * are registered in {@link #commandLine()}.
 *
 * <p>Errors: a bad command line prints one line naming what was wrong and exits {@link ExitCodes#USAGE}; any
 * other failure prints one line and exits {@link ExitCodes#FAILURE}. Stack traces only with
 * {@code CUDAIPC4J_DEBUG=1}.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        LineAtomicOutput.install();
        int code = run(args);
        if (AotTraining.requested()) {
            AotTraining.loadOwnClasses();
        }
        ProcessExit.exit(code);
    }

    /** Runs the tool and returns its exit code (tests call this in-process). */
    public static int run(String... args) {
        if (args.length == 0) {
            // The sample's own invocation. With nothing to parse, skip building the command-line model: picocli's
            // reflection over the commands is the largest part of this JVM's start-up.
            try {
                return new RootCommand().call();
            } catch (RuntimeException e) {
                return reportFailure(e, new PrintWriter(System.err, true));
            }
        }
        return commandLine().execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new RootCommand());
        cl.addSubcommand(new DevicesCommand());
        cl.addSubcommand(new org.cudaipc4j.tool.bench.BenchCommand());
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("cudaipc4j: " + ex.getMessage() + " (try --help)");
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> reportFailure(ex, c.getErr()));
        return cl;
    }

    /** Prints a failure in one line (a stack trace too with CUDAIPC4J_DEBUG=1) and returns the exit code. */
    private static int reportFailure(Exception ex, PrintWriter err) {
        err.println("cudaipc4j: " + Failures.oneLine(ex));
        if (ex instanceof UsageException) {
            return ExitCodes.USAGE;
        }
        if (Failures.debug()) {
            ex.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.FAILURE;
    }
}
