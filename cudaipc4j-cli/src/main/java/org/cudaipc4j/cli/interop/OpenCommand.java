package org.cudaipc4j.cli.interop;

import java.io.PrintWriter;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cudaipc4j interop open ARG}: maps what a descriptor or torch handle describes and prints one line per
 * tensor, {@code name-or-index dtype shape sha256}, the sha256 over the tensor's elements in row-major order (what
 * torch's {@code hashlib.sha256(t.contiguous().cpu().numpy().tobytes())} gives). Bad input exits 64 before any
 * driver is touched; a kind the command line cannot open exits 1; without a CUDA driver or device, 2 (waived).
 */
@Command(name = "open", mixinStandardHelpOptions = true,
        description = {"Map what a descriptor or torch handle describes and print one line per tensor:"
                + " index, dtype, shape, sha256 of its elements (as torch's"
                + " hashlib.sha256(t.contiguous().cpu().numpy().tobytes()) gives).",
            "A torch descriptor's slot is given back when done (a share opens once). Without a tensor, the whole"
                + " memory is one uint8 tensor."})
final class OpenCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ARG",
            description = "A descriptor file, - for standard input, the descriptor's JSON, or a torch handle's hex.")
    private String arg;

    @Option(names = "--device", paramLabel = "ORDINAL", defaultValue = "0",
            description = "The device of a bare handle or a torch descriptor without device_uuid (default: 0);"
                    + " a descriptor's device_uuid wins.")
    private int device;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            if (device < 0) {
                throw new BadInputException("--device must be a device ordinal (0 or more), got " + device);
            }
            Opening opening = Opening.of(InteropInput.parse(arg, () -> System.in));
            String cannot = opening.whyNot();
            if (cannot != null) {
                return fail(err, ExitCodes.FAILURE, "cannot open this from the command line: " + cannot);
            }
            OptionalInt waived = Failures.waiveIf(err, "nothing to open on: ", Cuda.unavailableReason());
            if (waived.isPresent()) {
                return waived.getAsInt();
            }
            List<String> lines = opening.open(device);
            for (String line : lines) {
                out.println(line);
            }
            out.flush();
            return ExitCodes.OK;
        } catch (BadInputException e) {
            return fail(err, ExitCodes.USAGE, e.getMessage());
        } catch (RuntimeException e) {
            if (Failures.debug()) {
                e.printStackTrace(err);
            }
            return fail(err, ExitCodes.FAILURE, Failures.oneLine(e));
        }
    }

    private static int fail(PrintWriter err, int code, String message) {
        err.println("cudaipc4j: " + message);
        err.flush();
        return code;
    }
}
