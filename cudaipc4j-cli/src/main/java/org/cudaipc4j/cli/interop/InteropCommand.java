package org.cudaipc4j.cli.interop;

import java.util.concurrent.Callable;
import org.cudaipc4j.tool.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code cudaipc4j interop}: the group of {@link DescribeCommand} and {@link OpenCommand}. Without a command it says
 * which there are and exits 64.
 */
@Command(name = "interop", mixinStandardHelpOptions = true,
        description = {"Look at what Java and PyTorch share: a descriptor (JSON, format 1.0) or a torch storage"
                + " handle (hex).",
            "ARG is a descriptor file, - for standard input, the descriptor's JSON text, or the handle's hex"
                + " (the bytes of torch's storage._share_cuda_()[1])."},
        subcommands = {DescribeCommand.class, OpenCommand.class})
public final class InteropCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    /** The group; picocli makes its commands. */
    public InteropCommand() {}

    /** Without a command: one line naming the commands, exit 64. */
    @Override
    public Integer call() {
        spec.commandLine().getErr().println("cudaipc4j: interop needs a command: "
                + String.join(" or ", spec.subcommands().keySet()) + " (try --help)");
        spec.commandLine().getErr().flush();
        return ExitCodes.USAGE;
    }
}
