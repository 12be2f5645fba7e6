package org.cudaipc4j.simpleipc.nccl;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.cudaipc4j.coord.ParentWatch;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DriverEnvironment;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.launch.LaunchEnvironment;
import org.cudaipc4j.launch.RendezvousException;
import org.cudaipc4j.launch.RendezvousOptions;
import org.cudaipc4j.nccl.Communicator;
import org.cudaipc4j.nccl.CommunicatorAbortedException;
import org.cudaipc4j.nccl.CommunicatorOptions;
import org.cudaipc4j.nccl.DataType;
import org.cudaipc4j.nccl.Nccl;
import org.cudaipc4j.nccl.NcclRank;
import org.cudaipc4j.nccl.ReduceOp;
import org.cudaipc4j.nccl.Watchdog;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.Sizes;

/**
 * One rank of the rotation over NCCL. Each rank's buffer is split into one part per rank; at turn {@code t} rank
 * {@code t} fills every owner's part {@code t} on its own GPU and sends it, each owner receives it into its buffer,
 * and every rank waits for the turn to complete before the next. At the end every owner checks every part of its
 * buffer, and rank 0 reports the job's result.
 */
public final class NcclRotation {
    private static final Duration WATCHDOG_PERIOD = Duration.ofMillis(100);
    private static final Duration EXIT_GRACE = Duration.ofMillis(500);

    private final NcclRunOptions options;
    private final LaunchEnvironment launch;
    private final PrintStream out;
    private final PrintStream err;

    NcclRotation(NcclRunOptions options, LaunchEnvironment launch, PrintStream out, PrintStream err) {
        this.options = options;
        this.launch = launch;
        this.out = out;
        this.err = err;
    }

    /** The value an owner's part {@code part} holds after round {@code round}: never 0, different per part. */
    static byte value(int owner, int part, int round) {
        return (byte) (1 + Math.floorMod(owner * 31 + part * 7 + round * 13, 251));
    }

    /** Runs this rank. */
    NcclRun.Result run() throws InterruptedException {
        int rank = launch.rank();
        int size = launch.size();
        long part = options.bytes() / size;
        if (part < 1) {
            err.println("cudaipc4j: --size " + options.bytes() + " is less than one byte per rank for " + size
                    + " ranks");
            return NcclRun.Result.USAGE;
        }
        if (SimpleIpcSettings.NCCL_SEPARATE_HOSTS.get()) {
            separateHost(rank);
        }
        endWithParent(rank);
        if (NcclRun.waivedWithoutDriver(err)) {
            return NcclRun.Result.WAIVED;
        }
        Nccl nccl = Nccl.load(); // NcclUnavailableException: waived by the caller
        Cuda.init();
        List<Integer> ordinals = options.devices().isEmpty() ? allDevices() : options.devices();
        if (ordinals.isEmpty()) {
            err.println(Failures.waived("no CUDA device"));
            return NcclRun.Result.WAIVED;
        }
        int ordinal = ordinals.get(launch.localRank() % ordinals.size());
        long started = System.nanoTime();
        try (Context context = Context.retainPrimary(Device.get(ordinal))) {
            if (rank == 0) {
                out.println("Transport: nccl (NCCL " + nccl.version() + " from " + nccl.library() + "), launcher "
                        + launch.launcher().name().toLowerCase(Locale.ROOT));
                out.println("Running " + size + (size == 1 ? " rank" : " ranks") + ": " + Sizes.format(part * size)
                        + " per buffer, " + options.rounds() + (options.rounds() == 1 ? " round" : " rounds"));
            }
            out.println("Process " + rank + ": Starting on device " + ordinal + "...");
            RendezvousOptions.Builder meet = RendezvousOptions.builder(launch)
                    .joinTimeout(min(options.timeout(), RendezvousOptions.DEFAULT_JOIN_TIMEOUT));
            CommunicatorOptions commOptions = CommunicatorOptions.DEFAULTS.withTimeout(options.timeout())
                    .withName("cudaipc4j-rotation");
            try (NcclRank joined = NcclRank.join(context, nccl, meet, commOptions, WATCHDOG_PERIOD,
                    Watchdog.exitProcess(err, EXIT_GRACE))) {
                int failures;
                try {
                    failures = rotate(context, joined.communicator(), part);
                } catch (CommunicatorAbortedException e) {
                    if (joined.fault().isEmpty()) {
                        err.println("cudaipc4j: " + e.getMessage());
                    }
                    return NcclRun.Result.FAILED;
                }
                if (failures > 0) {
                    return NcclRun.Result.FAILED;
                }
                if (rank == 0) {
                    out.printf(Locale.ROOT, "Passed: %d %s over NCCL, %d x %s verified, %d %s, %.2f s%n", size,
                            size == 1 ? "rank" : "ranks", size, Sizes.format(part * size), options.rounds(),
                            options.rounds() == 1 ? "round" : "rounds", (System.nanoTime() - started) / 1e9);
                }
                return NcclRun.Result.PASSED;
            } catch (RendezvousException e) {
                err.println("cudaipc4j: rank " + rank + ": " + e.getMessage());
                return NcclRun.Result.FAILED;
            }
        }
    }

    /** The rotation and the check; returns the number of ranks whose buffer was wrong (the same on every rank). */
    private int rotate(Context context, Communicator comm, long part) {
        int rank = comm.rank();
        int size = comm.size();
        try (DeviceBuffer buffer = DeviceBuffer.allocate(context, part * size);
             DeviceBuffer staging = DeviceBuffer.allocate(context, part * size);
             DeviceBuffer status = DeviceBuffer.allocate(context, 4);
             Stream stream = Stream.create(context, true)) {
            buffer.memset((byte) 0);
            int step = 0;
            for (int round = 0; round < options.rounds(); round++) {
                for (int turn = 0; turn < size; turn++) {
                    if (rank == turn) {
                        int k = round;
                        int t = turn;
                        buffer.memsetAsync(part * t, part, value(rank, t, k), stream);
                        for (int owner = 0; owner < size; owner++) {
                            if (owner != rank) {
                                staging.memsetAsync(part * owner, part, value(owner, t, k), stream);
                            }
                        }
                        comm.group(() -> {
                            for (int owner = 0; owner < size; owner++) {
                                if (owner != rank) {
                                    comm.send(staging.slice(part * owner, part), DataType.UINT8, owner, stream);
                                }
                            }
                        });
                    } else {
                        comm.recv(buffer.slice(part * turn, part), DataType.UINT8, turn, stream);
                    }
                    comm.await(stream);
                    if (rank == 0) {
                        out.println("Step " + step + " done");
                    }
                    step++;
                }
            }
            out.println("Process " + rank + ": verifying...");
            String wrong = check(buffer, rank, size, part);
            if (wrong != null) {
                err.println("cudaipc4j: Process " + rank + ": " + wrong);
            } else {
                out.println("Process " + rank + " complete!");
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment one = arena.allocate(ValueLayout.JAVA_INT);
                one.set(ValueLayout.JAVA_INT, 0, wrong == null ? 0 : 1);
                status.copyFrom(0, one);
                comm.allReduce(status, status, DataType.INT32, ReduceOp.SUM, stream);
                comm.await(stream);
                status.copyTo(0, one);
                int failed = one.get(ValueLayout.JAVA_INT, 0);
                if (failed > 0 && rank == 0) {
                    out.println("Failed: " + failed + " of " + size + " ranks found a wrong byte");
                }
                return failed;
            }
        }
    }

    /** The first wrong byte of {@code buffer} in words, or null when every part holds its value. */
    private String check(DeviceBuffer buffer, int rank, int size, long part) {
        int lastRound = options.rounds() - 1;
        long chunk = Math.min(part, 16L << 20);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(chunk);
            for (int t = 0; t < size; t++) {
                byte expected = value(rank, t, lastRound);
                for (long start = 0; start < part; start += chunk) {
                    long n = Math.min(chunk, part - start);
                    MemorySegment view = host.asSlice(0, n);
                    buffer.copyTo(part * t + start, view);
                    long at = view.mismatch(MemorySegment.ofArray(filled(n, expected)));
                    if (at >= 0) {
                        return String.format(Locale.ROOT,
                                "verification failed at offset %d (part of process %d): expected %d, got %d",
                                part * t + start + at, t, expected & 0xff, view.get(ValueLayout.JAVA_BYTE, at) & 0xff);
                    }
                }
            }
        }
        return null;
    }

    private static byte[] filled(long n, byte value) {
        byte[] b = new byte[(int) n];
        java.util.Arrays.fill(b, value);
        return b;
    }

    /**
     * Makes this rank a host of its own to NCCL, unless the user set these variables (see
     * {@link SimpleIpcSettings#NCCL_SEPARATE_HOSTS}).
     */
    public static void separateHost(int rank) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        DriverEnvironment.setUnlessSet("NCCL_HOSTID", host + "-rank" + rank);
        DriverEnvironment.setUnlessSet("NCCL_P2P_DISABLE", "1");
        DriverEnvironment.setUnlessSet("NCCL_SHM_DISABLE", "1");
        DriverEnvironment.setUnlessSet("NCCL_SOCKET_IFNAME", "lo");
    }

    /**
     * Ends this rank when the tool that started it ends, or stays stopped for longer than the silence limit
     * ({@link ParentWatch#whenStarterGone}); nothing for a rank a launcher of the user's started.
     */
    private void endWithParent(int rank) {
        ParentWatch.whenStarterGone((pid, why) -> {
            err.println("cudaipc4j: rank " + rank + " ends: the tool that started it (pid " + pid + ") " + why);
            err.flush();
            Runtime.getRuntime().halt(1);
        });
    }

    private static List<Integer> allDevices() {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < Device.count(); i++) {
            all.add(i);
        }
        return all;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) < 0 ? a : b;
    }
}
