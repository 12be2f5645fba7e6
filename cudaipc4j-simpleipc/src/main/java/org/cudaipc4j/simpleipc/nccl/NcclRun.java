package org.cudaipc4j.simpleipc.nccl;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.launch.LaunchEnvironment;
import org.cudaipc4j.launch.LaunchEnvironmentException;
import org.cudaipc4j.launch.Launcher;
import org.cudaipc4j.nccl.Nccl;
import org.cudaipc4j.nccl.NcclUnavailableException;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

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
            out.println("Waived: NCCL is not usable: " + e.getMessage());
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
    static boolean waivedWithoutDriver(PrintStream out) {
        if (Cuda.isDriverAvailable()) {
            return false;
        }
        out.println("Waived: no CUDA driver (" + Cuda.unavailableReason().orElse("not found") + ")");
        return true;
    }

    /** The tool's own start: checks NCCL and the devices, then runs one child per rank and waits for them all. */
    private static Result startRanks(NcclRunOptions options, String mainClass, PrintStream out, PrintStream err) {
        if (waivedWithoutDriver(out)) {
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
            out.println("Waived: no CUDA device");
            return Result.WAIVED;
        }
        int size = devices.size() * options.procsPerDevice();
        LocalRanks local = new LocalRanks(size, devices.size());
        List<String> rankArgs = List.of("--transport", "nccl", "--size", Long.toString(options.bytes()),
                "--steps", Integer.toString(options.rounds()),
                "--timeout", options.timeout().toMillis() + "ms",
                "--devices", devices.stream().map(String::valueOf).collect(Collectors.joining(",")));
        List<Process> ranks = new ArrayList<>();
        try {
            for (int r = 0; r < size; r++) {
                ProcessBuilder pb = local.rank(r, mainClass, rankArgs).inheritIO();
                pb.environment().put(SimpleIpcSettings.NCCL_PARENT_PID.name(),
                        Long.toString(ProcessHandle.current().pid()));
                ranks.add(pb.start());
            }
            return awaitRanks(ranks, options.timeout(), err);
        } catch (IOException e) {
            err.println("cudaipc4j: cannot start rank " + ranks.size() + ": " + e.getMessage());
            return Result.FAILED;
        } finally {
            for (Process p : ranks) {
                p.destroyForcibly();
            }
        }
    }

    /** How long the other ranks get to end by their watchdogs once one failed, before they are killed. */
    private static final Duration AFTER_FAILURE = Duration.ofSeconds(10);

    /**
     * Waits for every rank; reports each that failed. After the first failure the others get
     * {@link #AFTER_FAILURE} to end (their watchdogs end them within seconds); after {@code timeout} they are killed.
     */
    private static Result awaitRanks(List<Process> ranks, Duration timeout, PrintStream err) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> failures = new ArrayList<>();
        boolean[] reported = new boolean[ranks.size()];
        try {
            while (true) {
                boolean running = false;
                for (int r = 0; r < ranks.size(); r++) {
                    Process p = ranks.get(r);
                    if (p.isAlive()) {
                        running = true;
                    } else if (!reported[r]) {
                        reported[r] = true;
                        if (p.exitValue() != 0) {
                            failures.add("Process " + r + " failed (" + describeExit(p.exitValue()) + ")");
                            deadline = Math.min(deadline, System.nanoTime() + AFTER_FAILURE.toNanos());
                        }
                    }
                }
                if (!running) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    for (int r = 0; r < ranks.size(); r++) {
                        if (ranks.get(r).isAlive()) {
                            failures.add("Process " + r + " failed (" + (failures.isEmpty() ? "still running at the"
                                    + " --timeout of " + timeout.toSeconds() + " s" : "still running "
                                    + AFTER_FAILURE.toSeconds() + " s after another failed") + "; killed)");
                            ranks.get(r).destroyForcibly();
                        }
                    }
                    break;
                }
                try {
                    // Wake at the first exit of any rank, or at the deadline; the next round reads which.
                    CompletableFuture.anyOf(ranks.stream().filter(Process::isAlive).map(Process::onExit)
                            .toArray(CompletableFuture[]::new)).get(left, TimeUnit.NANOSECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // read at the top of the loop
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        }
        for (String f : failures) {
            err.println("cudaipc4j: " + f);
        }
        return failures.isEmpty() ? Result.PASSED : Result.FAILED;
    }

    private static String describeExit(int code) {
        return code > 128 ? "killed by signal " + (code - 128) : "exit code " + code;
    }

    private static List<Integer> range(int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }
}
