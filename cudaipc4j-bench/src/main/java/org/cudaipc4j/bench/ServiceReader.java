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
 * A reader as a service that embeds the library runs it: a {@code main} of its own, started by its own {@code java}
 * on the class path ({@code java --enable-native-access=ALL-UNNAMED -cp cudaipc4j.jar
 * org.cudaipc4j.bench.ServiceReader ...}), without the tool's command line, whose parsing no such service pays. Its
 * starts ({@link InteropBench.ReaderStart}: the driver, torch's leases) begin first thing, beside the read of FILE;
 * every figure is timed from the exec (EXEC_EPOCH_US: the caller's clock just before the exec, in microseconds since
 * the epoch) as well as for the open alone. Two forms:
 * <ul>
 *   <li>{@code FILE [STEADY_FILE...] EXEC_EPOCH_US}: the scale case ({@link InteropBench.Case#SCALE}), every torch
 *       share of FILE opened in turn, then each steady round (a file of further shares of the same storages, each a
 *       cache hit);</li>
 *   <li>{@code pool FILE EXEC_EPOCH_US}: the pool case ({@link InteropBench.Case#POOL}), the memory-pool export of
 *       FILE imported.</li>
 * </ul>
 * Prints the figures' line; exits as the tool does ({@link ExitCodes}: a bad command line or file 64, no usable CUDA
 * device 2, any other failure 1), each with one line on standard error.
 */
public final class ServiceReader {
    /** The first word of the pool form. */
    private static final String POOL = "pool";

    private ServiceReader() {}

    /**
     * Reads FILE's torch shares and opens them all, timed from EXEC_EPOCH_US, then the steady rounds; or, after the
     * word {@code pool}, imports FILE's pool export, timed from EXEC_EPOCH_US.
     *
     * @param args FILE [STEADY_FILE...] EXEC_EPOCH_US, or pool FILE EXEC_EPOCH_US
     */
    public static void main(String[] args) {
        int exit = run(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    /** {@return the exit status of a run of {@code args}, its starts closed} */
    private static int run(String[] args) {
        InteropBench.Case benchCase = args.length > 0 && args[0].equals(POOL) ? InteropBench.Case.POOL
                : InteropBench.Case.SCALE;
        try (InteropBench.ReaderStart start = InteropBench.ReaderStart.ofService(benchCase)) {
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

    /** {@return the plan of the command line: the scale case's, or the pool case's after the word pool} */
    private static InteropBench.Plan plan(String[] args) {
        if (args.length < 2 || !args[args.length - 1].matches("[1-9][0-9]{0,17}")
                || (args[0].equals(POOL) && args.length != 3)) {
            throw new IllegalArgumentException("usage: ServiceReader FILE [STEADY_FILE...] EXEC_EPOCH_US, or"
                    + " ServiceReader pool FILE EXEC_EPOCH_US (microseconds since the epoch)");
        }
        long exec = Long.parseLong(args[args.length - 1]);
        if (args[0].equals(POOL)) {
            List<Descriptor> export = InteropBench.readDescriptors(Path.of(args[1]));
            String why = export.size() == 1 ? InteropBench.unfit(InteropBench.Case.POOL, export.getFirst())
                    : "the pool case takes one descriptor, got " + export.size();
            if (why != null) {
                throw new IllegalArgumentException(args[1] + ": " + why);
            }
            return InteropBench.Plan.poolFromExec(export, exec);
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
        return InteropBench.Plan.scale(descriptors, steady, exec);
    }
}
