package org.cudaipc4j.cli;

import java.io.PrintWriter;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.cudaipc4j.simpleipc.SimpleIpcParent;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.LineAtomicOutput;
import org.cudaipc4j.tool.ProcessExit;
import org.cudaipc4j.tool.ToolSettings;
import org.cudaipc4j.tool.UsageException;
import picocli.CommandLine;

/**
 * Entry point of the {@code cudaipc4j} tool. Without a sub-command it runs the simpleIPC parent; sub-commands
 * are registered in {@link #commandLine()}.
 *
 * <p>Errors: a bad command line prints one line naming what was wrong and exits {@link ExitCodes#USAGE}; any
 * other failure prints one line and exits {@link ExitCodes#FAILURE}; output to a closed pipe ends it silently with
 * {@link ExitCodes#CLOSED_PIPE}. Stack traces only with
 * {@code CUDAIPC4J_DEBUG=1}.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        LineAtomicOutput.install();
        String benchPid = ToolSettings.BENCH_PID.get();
        if (benchPid != null) {
            stopWhenBenchGone(benchPid); // a run a bench started (no lambda made on the plain run's start-up path)
        }
        int code = run(args);
        if (code == ExitCodes.OK && System.out.checkError()) {
            // A result nobody can read is no success: a closed pipe ends the tool silently, as SIGPIPE ends a Unix
            // tool (the JVM ignores the signal); a full disk is an error.
            if (LineAtomicOutput.standardOutputIsPipe()) {
                code = ExitCodes.CLOSED_PIPE;
            } else {
                System.err.println("cudaipc4j: cannot write to standard output");
                code = ExitCodes.FAILURE;
            }
        }
        if (AotTraining.requested()) {
            AotTraining.loadOwnClasses();
            // The training run's options skip picocli; its model (commands, help, errors) goes in the cache too.
            commandLine().parseArgs("--size", "1M");
        }
        ProcessExit.exit(code);
    }

    /**
     * A run whose bench is gone, or stopped for longer than the silence limit, stops as on SIGTERM: the shutdown
     * hooks end its group and remove what it made.
     */
    private static void stopWhenBenchGone(String benchPid) {
        ProcessExit.whenBenchGone(benchPid, (pid, why) -> {
            System.err.println("cudaipc4j: stopped: the bench that started this run (pid " + pid + ") " + why);
            ProcessExit.exit(ExitCodes.FAILURE);
        });
    }

    /** Runs the tool and returns its exit code (tests call this in-process). */
    public static int run(String... args) {
        // The sample's own invocation, or one with a few simpleIPC options: skip building the command-line model
        // (picocli's reflection over the commands is the largest part of this JVM's start-up). Anything else, a
        // value options() refuses included, goes to picocli, which reports it.
        RootCommand quick = CliSettings.NO_QUICK_OPTIONS.get() ? null : RootCommand.withoutPicocli(args);
        if (quick != null && quick.transport != RootCommand.Transport.IPC) {
            quick = null; // --transport nccl goes through picocli
        }
        SimpleIpcOptions options = quick == null ? null : quick.optionsOrNull();
        if (options != null) {
            try {
                return new SimpleIpcParent(options).run();
            } catch (RuntimeException e) {
                return reportFailure(e, new PrintWriter(System.err, true));
            }
        }
        return commandLine().execute(args);
    }

    /**
     * Why these simpleIPC options would be a usage error, or null when they are fine: the bench checks the options
     * of its runs before it starts any.
     */
    public static String usageProblem(java.util.List<String> simpleIpcArgs) {
        CommandLine cl = commandLine();
        try {
            CommandLine.ParseResult parsed = cl.parseArgs(simpleIpcArgs.toArray(String[]::new));
            if (parsed.hasSubcommand()) {
                return "'" + parsed.subcommand().commandSpec().name() + "' is a command, not a simpleIPC option";
            }
            if (parsed.isUsageHelpRequested() || parsed.isVersionHelpRequested()) {
                return "--help and --version do not run simpleIPC";
            }
            ((RootCommand) cl.getCommand()).options();
            return null;
        } catch (CommandLine.ParameterException e) {
            return usageMessage(e);
        }
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new RootCommand());
        cl.addSubcommand(new DevicesCommand());
        cl.addSubcommand(new BenchCommand(Main.class.getName(), Main::usageProblem));
        cl.addSubcommand(new org.cudaipc4j.cli.interop.InteropCommand());
        cl.addSubcommand(new CommandLine.HelpCommand()); // help [COMMAND], as --help and COMMAND --help
        versionEverywhere(cl, new RootCommand.Version()); // every command's -V, which its help lists
        // Help fits the terminal (100 columns when there is none), so phrases are not broken early.
        cl.setUsageHelpWidth(100);
        cl.setUsageHelpAutoWidth(true);
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            if (asksForHelp(a)) {
                c.usage(c.getOut()); // help asked beside a bad value: the help, as without it
                return ExitCodes.OK;
            }
            c.getErr().println("cudaipc4j: " + usageMessage(ex) + " (try --help)");
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> reportFailure(ex, c.getErr()));
        return cl;
    }

    /** {@return whether {@code args} hold {@code -h} or {@code --help} before a {@code --}} */
    static boolean asksForHelp(String[] args) {
        for (String arg : args) {
            if (arg.equals("--")) {
                return false;
            }
            if (arg.equals("-h") || arg.equals("--help")) {
                return true;
            }
        }
        return false;
    }

    private static void versionEverywhere(CommandLine c, CommandLine.IVersionProvider version) {
        c.getCommandSpec().versionProvider(version);
        c.getSubcommands().values().forEach(sub -> versionEverywhere(sub, version));
    }

    /**
     * A command-line error in words: a value an option's type refuses in that option's words; a stray word (the command takes no other words) is named as an unknown command,
     * with the commands there are.
     */
    static String usageMessage(CommandLine.ParameterException ex) {
        if (ex.getCause() instanceof OptionTypes.Refused refused) {
            return refused.getMessage(); // the option's own line, not picocli's "Invalid value for ..."
        }
        CommandLine c = ex.getCommandLine();
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !c.getSubcommands().isEmpty()) {
            java.util.List<String> args = unmatched.getUnmatched();
            if (!args.isEmpty() && !args.getFirst().startsWith("-")) {
                return "'" + args.getFirst() + "' is not a command of " + c.getCommandName() + "; the commands are "
                        + String.join(", ", c.getSubcommands().keySet())
                        + (c.getParent() == null ? " (without one, simpleIPC runs)" : "");
            }
        }
        return ex.getMessage();
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
