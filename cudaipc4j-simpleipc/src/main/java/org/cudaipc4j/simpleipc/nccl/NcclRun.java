package org.cudaipc4j.simpleipc.nccl;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.MemberCommand;
import org.cudaipc4j.coord.ParentWatch;
import org.cudaipc4j.coord.Supervisor;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.launch.LaunchEnvironment;
import org.cudaipc4j.launch.LaunchEnvironmentException;
import org.cudaipc4j.launch.Launcher;
import org.cudaipc4j.nccl.Nccl;
import org.cudaipc4j.nccl.NcclUnavailableException;
import org.cudaipc4j.tool.Failures;

/**
 * {@code --transport nccl}: under a launcher (torchrun, Open MPI, Slurm, or our own {@code CUDAIPC4J_*} variables)
 * this process is one rank; without one, the tool starts one rank per device (times {@code --procs-per-device})
 * itself, on loopback, and supervises them.
 */
public final class NcclRun {
    private NcclRun() {}

    /** How a run ended; the tool maps it to its exit codes. */
    public enum Result {
        /** Every rank's buffer verified. */
        PASSED,
        /** A rank failed, found a wrong byte, or did not finish in time. */
        FAILED,
        /** No NCCL, driver or device: the run cannot be made here. */
        WAIVED,
        /** A bad value: an option or a launcher's variable. */
        USAGE
    }

    /**
     * Runs: as one rank under a launcher, else by starting the ranks as processes of {@code mainClass} (the tool's
     * entry point, which runs them with the same options).
     */
    public static Result run(NcclRunOptions options, String mainClass, PrintStream out, PrintStream err) {
        LaunchEnvironment launch;
        try {
            launch = LaunchEnvironment.fromSystem();
        } catch (LaunchEnvironmentException e) {
            err.println("cudaipc4j: " + e.getMessage());
            return Result.USAGE;
        }
        try {
            if (launch.launcher() == Launcher.NONE) {
                return startRanks(options, mainClass, out, err);
            }
            return new NcclRotation(options, launch, out, err).run();
        } catch (NcclUnavailableException e) {
            err.println(Failures.waived("NCCL is not usable: " + e.getMessage()));
            return Result.WAIVED;
        } catch (LaunchEnvironmentException e) {
            err.println("cudaipc4j: " + e.getMessage());
            return Result.USAGE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("cudaipc4j: interrupted");
            return Result.FAILED;
        }
    }

    /**
     * {@return true, having printed the waiver, when there is no CUDA driver} Checked before NCCL is loaded: without
     * a GPU, NCCL is not what is missing.
     */
    static boolean waivedWithoutDriver(PrintStream err) {
        if (Cuda.isDriverAvailable()) {
            return false;
        }
        err.println(Failures.waived("no CUDA driver (" + Cuda.unavailableReason().orElse("not found") + ")"));
        return true;
    }

    /** The tool's own start: checks NCCL and the devices, then runs one child per rank and waits for them all. */
    private static Result startRanks(NcclRunOptions options, String mainClass, PrintStream out, PrintStream err) {
        if (waivedWithoutDriver(err)) {
            return Result.WAIVED;
        }
        Nccl.load(); // NcclUnavailableException: waived
        Cuda.init();
        int visible = Device.count();
        List<Integer> devices = options.devices().isEmpty() ? range(visible) : options.devices();
        for (int d : devices) {
            if (d >= visible) {
                err.println("cudaipc4j: --devices: device " + d + " does not exist (" + visible + " visible)");
                return Result.USAGE;
            }
        }
        if (devices.isEmpty()) {
            err.println(Failures.waived("no CUDA device"));
            return Result.WAIVED;
        }
        int size = devices.size() * options.procsPerDevice();
        LocalRanks local = new LocalRanks(size, devices.size());
        List<String> rankArgs = List.of("--transport", "nccl", "--size", Long.toString(options.bytes()),
                "--steps", Integer.toString(options.rounds()),
                "--timeout", options.timeout().toMillis() + "ms",
                "--devices", devices.stream().map(String::valueOf).collect(Collectors.joining(",")));
        List<MemberCommand> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            ranks.add(local.rank(r, mainClass, rankArgs));
        }
        return superviseRanks(ranks, options.timeout(), AFTER_FAILURE, out, err);
    }

    /** How long the other ranks get to end by their watchdogs once one failed, before they are terminated. */
    private static final Duration AFTER_FAILURE = Duration.ofSeconds(10);

    /**
     * Starts the ranks, each told this process's pid by the supervisor ({@link ParentWatch#starter}: it ends when this
     * process does), and waits for them all; reports each that failed on {@code err}. After the first failure the others
     * get {@code afterFailure} to end (their watchdogs end them within seconds) before they are terminated; after
     * {@code timeout} they are killed. What they write goes to {@code out} and {@code err}, inherited where those
     * are this process's own.
     */
    static Result superviseRanks(List<MemberCommand> ranks, Duration timeout, Duration afterFailure, PrintStream out,
                                 PrintStream err) {
        Supervisor.Options supervision = Supervisor.Options.defaults().withPrefixOutput(false).withOutput(out, err)
                .withGracePeriod(afterFailure);
        try (Supervisor supervisor = Supervisor.withoutBlock(ranks.size(), supervision)) {
            supervisor.launch(ranks);
            Supervisor.Outcome outcome = supervisor.awaitAll(Deadline.after(timeout, "--timeout"));
            for (Supervisor.Failure f : outcome.failures()) {
                err.println("cudaipc4j: Process " + f.index() + " failed (" + f.reason() + ")");
            }
            return outcome.ok() ? Result.PASSED : Result.FAILED;
        } catch (CoordinationException e) {
            err.println("cudaipc4j: " + (Thread.currentThread().isInterrupted() ? "interrupted" : e.getMessage()));
            return Result.FAILED;
        }
    }

    private static List<Integer> range(int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }
}
