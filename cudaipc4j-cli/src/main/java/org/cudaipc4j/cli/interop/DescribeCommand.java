package org.cudaipc4j.cli.interop;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import org.cudaipc4j.tool.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cudaipc4j interop describe ARG}: what a descriptor or a torch handle says, one field per line (or JSON with
 * {@code --json}). Reads with the library's parsers only: no driver, no GPU.
 */
@Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Print what a descriptor or torch handle says: kind, version, device, size, offset, tensor,"
                + " event, producer. Needs no GPU.")
final class DescribeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ARG",
            description = "A descriptor file, - for standard input, the descriptor's JSON, or a torch handle's hex.")
    private String arg;

    @Option(names = "--json", description = "Print JSON instead of text.")
    private boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Description d;
        try {
            d = Description.of(InteropInput.parse(arg, () -> System.in));
        } catch (BadInputException e) {
            err.println("cudaipc4j: " + e.getMessage());
            err.flush();
            return ExitCodes.USAGE;
        }
        if (json) {
            out.println(new GsonBuilder().setPrettyPrinting().create().toJson(d.fields()));
        } else {
            for (Map.Entry<String, String> f : d.text().entrySet()) {
                out.printf("%-15s %s%n", f.getKey(), f.getValue());
            }
        }
        out.flush();
        return ExitCodes.OK;
    }
}
