package org.cudaipc4j.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;

/**
 * The scale case's reader ({@link InteropBench.Case#SCALE}), as a service that embeds the library runs its reader: a
 * {@code main} of its own, started by its own {@code java} on the class path ({@code java
 * --enable-native-access=ALL-UNNAMED -cp cudaipc4j.jar org.cudaipc4j.bench.ServiceReader FILE [STEADY_FILE...]
 * EXEC_EPOCH_US}), without the tool's command line, whose parsing no such service pays. Its starts
 * ({@link InteropBench.ReaderStart}: torch's leases, the driver) begin first thing, beside the read of FILE; then
 * every share of FILE is opened in turn, timed from the exec (EXEC_EPOCH_US: the caller's clock just before the exec,
 * in microseconds since the epoch) and for the opens alone, then each steady round (a file of further shares of the
 * same storages, each a cache hit). Prints the figures' line; exits as the tool does ({@link ExitCodes}: a bad
 * command line or file 64, no usable CUDA device 2, any other failure 1), each with one line on standard error.
 */
public final class ServiceReader {
    private ServiceReader() {}

    /**
     * Reads FILE's torch shares and opens them all, timed from EXEC_EPOCH_US, then the steady rounds.
     *
     * @param args FILE [STEADY_FILE...] EXEC_EPOCH_US
     */
    public static void main(String[] args) {
        int exit = run(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    /** {@return the exit status of a run of {@code args}, its starts closed} */
    private static int run(String[] args) {
        try (InteropBench.ReaderStart start = InteropBench.ReaderStart.of(InteropBench.Case.SCALE, false)) {
            InteropBench.Plan plan;
            try {
                plan = plan(args);
            } catch (IllegalArgumentException e) {
                System.err.println("service reader: " + e.getMessage());
                return ExitCodes.USAGE;
            }
            start.descriptorsRead();
            try {
                System.out.println(InteropBench.run(plan, start));
                return ExitCodes.OK;
            } catch (RuntimeException e) {
                // Asked only now: the question waits for the driver's start, which the run's stages time.
                OptionalInt waived = Failures.waiveIf(new PrintWriter(System.err, true), "service reader: ",
                        Cuda.unavailableReason());
                if (waived.isPresent()) {
                    return waived.getAsInt();
                }
                throw e;
            }
        } catch (RuntimeException | Error e) {
            System.err.println("service reader: " + String.valueOf(e).replace('\n', ' '));
            return ExitCodes.FAILURE;
        }
    }

    /** {@return the scale plan of the command line} */
    private static InteropBench.Plan plan(String[] args) {
        if (args.length < 2 || !args[args.length - 1].matches("[1-9][0-9]{0,17}")) {
            throw new IllegalArgumentException("usage: ServiceReader FILE [STEADY_FILE...] EXEC_EPOCH_US (microseconds"
                    + " since the epoch)");
        }
        List<Descriptor> descriptors = InteropBench.readDescriptors(Path.of(args[0]));
        for (Descriptor d : descriptors) {
            String why = InteropBench.unfit(InteropBench.Case.SCALE, d);
            if (why != null) {
                throw new IllegalArgumentException(args[0] + ": " + why);
            }
        }
        List<Path> steady = new ArrayList<>();
        for (int i = 1; i < args.length - 1; i++) {
            Path f = Path.of(args[i]);
            if (!Files.isRegularFile(f) || !Files.isReadable(f)) {
                throw new IllegalArgumentException(f + ": no such readable file (a steady round)");
            }
            steady.add(f);
        }
        return InteropBench.Plan.scale(descriptors, steady, Long.parseLong(args[args.length - 1]));
    }
}
