package org.cudaipc4j.tool.nccl;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.coord.Supervisor;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.nccl.Nccl;
import org.cudaipc4j.nccl.NcclUnavailableException;
import org.cudaipc4j.nccl.launch.LaunchEnvironment;
import org.cudaipc4j.nccl.launch.LaunchEnvironmentException;
import org.cudaipc4j.nccl.launch.Launcher;

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

    /** The tool's own start: checks NCCL and the devices, then runs one child per rank and waits for them all. */
    private static Result startRanks(NcclRunOptions options, String mainClass, PrintStream out, PrintStream err) {
        Nccl.load(); // NcclUnavailableException: waived
        if (!Cuda.isDriverAvailable()) {
            out.println("Waived: no CUDA driver (" + Cuda.unavailableReason().orElse("not found") + ")");
            return Result.WAIVED;
        }
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
        String secret = HexFormat.of().formatHex(new SecureRandom().generateSeed(32));
        int port = freeLoopbackPort();
        List<String> rankArgs = List.of("--transport", "nccl", "--size", Long.toString(options.bytes()),
                "--steps", Integer.toString(options.rounds()),
                "--timeout", options.timeout().toMillis() + "ms",
                "--devices", devices.stream().map(String::valueOf).collect(Collectors.joining(",")));
        List<String> base = JvmCommand.base();
        List<List<String>> commands = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            List<String> command = new ArrayList<>(List.of("env", "CUDAIPC4J_RANK=" + r,
                    "CUDAIPC4J_WORLD_SIZE=" + size, "CUDAIPC4J_LOCAL_RANK=" + r,
                    "CUDAIPC4J_RENDEZVOUS=127.0.0.1:" + port));
            if (size > devices.size()) {
                command.add(NcclRotation.SEPARATE_HOSTS_ENV + "=1");
            }
            command.addAll(JvmCommand.from(base, List.of(), mainClass, rankArgs));
            commands.add(command);
        }
        Supervisor.Options supervision = Supervisor.Options.defaults()
                .withEnvironment(Map.of("CUDAIPC4J_RENDEZVOUS_SECRET", secret));
        try (Supervisor supervisor = new Supervisor(size, supervision)) {
            supervisor.start(commands);
            Supervisor.Outcome outcome = supervisor.awaitAll(Deadline.after(options.timeout(), "--timeout"));
            if (outcome.ok()) {
                return Result.PASSED;
            }
            for (Supervisor.Failure f : outcome.failures()) {
                err.println("cudaipc4j: Process " + f.index() + " failed (" + f.reason() + ")");
            }
            return Result.FAILED;
        }
    }

    /** A port on 127.0.0.1 that was free a moment ago, for rank 0 to bind. */
    private static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on 127.0.0.1: " + e.getMessage(), e);
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
