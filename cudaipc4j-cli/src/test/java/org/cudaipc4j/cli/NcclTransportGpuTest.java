package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --transport nccl} on the one GPU, every rank a host of its own to NCCL: under the tool's own start, under
 * {@code mpirun}, and as independent processes with a torchrun-style environment, where a rank killed or stopped
 * mid-rotation ends the others within 5 s through their watchdogs.
 */
@GpuTest
class NcclTransportGpuTest {
    private static final long END_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    @TempDir
    Path logs;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void theToolStartsItsRanksAndTheRotationPasses(int ranks) {
        ToolRun run = ToolRun.run(Duration.ofMinutes(3), "--transport", "nccl", "--procs-per-device", "" + ranks,
                "--size", "8M", "--steps", "3");
        run.assertExit(0);
        assertTrue(run.out.contains("Passed: " + ranks + " ranks over NCCL, " + ranks + " x 8 MiB verified, 3 rounds"),
                run.out + run.err);
        for (int r = 0; r < ranks; r++) {
            assertTrue(run.out.contains("Process " + r + " complete!"), run.out);
        }
        assertTrue(run.out.contains("Step " + (3 * ranks - 1) + " done"), run.out);
        run.assertNothingLeft();
    }

    @Test
    void ranksTheToolStartedEndWhenItIsKilled() throws Exception {
        Process tool = ToolRun.start("--transport", "nccl", "--procs-per-device", "2", "--size", "1M", "--steps",
                "1000000", "--timeout", "5m");
        try (var out = tool.inputReader()) {
            String line;
            while ((line = out.readLine()) != null && !line.equals("Step 40 done")) {
                // wait for the rotation to run
            }
            assertTrue(line != null, "the rotation did not get going");
            List<ProcessHandle> ranks = tool.descendants().toList();
            assertEquals(2, ranks.size(), "ranks: " + ranks);
            long killed = System.nanoTime();
            tool.destroyForcibly();
            for (ProcessHandle rank : ranks) {
                rank.onExit().get(30, TimeUnit.SECONDS);
                System.out.printf("tool killed: rank pid %d ended after %.2f s%n", rank.pid(),
                        (System.nanoTime() - killed) / 1e9);
            }
            assertTrue(System.nanoTime() - killed <= END_LIMIT_NANOS, "ranks took "
                    + (System.nanoTime() - killed) / 1e6 + " ms to end after the tool was killed");
        } finally {
            tool.descendants().forEach(ProcessHandle::destroyForcibly);
            tool.destroyForcibly();
        }
    }

    @Test
    void benchMeasuresSendRecvAndAllReduce() throws Exception {
        ToolRun run = ToolRun.run(Duration.ofMinutes(3), "bench", "--only", "nccl", "--procs", "2,3", "--sizes",
                "4K,8M", "--repeat", "3", "--out", logs.toString());
        run.assertExit(0);
        for (String figure : List.of("NCCL sendrecv, 2 ranks, 4 KiB", "NCCL sendrecv, 2 ranks, 8 MiB",
                "NCCL allreduce, 2 ranks, 8 MiB", "NCCL allreduce, 3 ranks, 8 MiB")) {
            assertTrue(run.out.contains(figure), figure + " missing: " + run.out + run.err);
        }
        String json = Files.readString(logs.resolve("bench.json"));
        assertTrue(json.contains("\"nccl\"") && json.contains("\"busGBps\""), json);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void underMpirunWithOnlyItsVariables(int size) throws Exception {
        Assumptions.assumeTrue(onPath("mpirun"), "no mpirun");
        List<String> command = new ArrayList<>(List.of("mpirun", "--allow-run-as-root", "--oversubscribe", "-np",
                "" + size, "-x", "CUDAIPC4J_NCCL_SEPARATE_HOSTS=1"));
        command.addAll(NcclRanks.toolCommand("--transport", "nccl", "--size", "8M", "--steps", "2"));
        JavaProcess.Result r = JavaProcess.runCommand(Duration.ofMinutes(3), command);
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(r.stdout().contains("launcher open_mpi"), r.describe());
        assertTrue(r.stdout().contains("Passed: " + size + " ranks over NCCL, " + size + " x 8 MiB verified, 2 rounds"),
                r.describe());
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void independentProcessesWithATorchrunEnvironmentPass(int size) throws Exception {
        try (NcclRanks ranks = NcclRanks.torchrunStyle(size, logs, r -> Map.of(), "--transport", "nccl", "--size",
                "8M", "--steps", "2")) {
            for (int r = 0; r < size; r++) {
                assertTrue(ranks.processes.get(r).waitFor(3, TimeUnit.MINUTES), ranks.describe());
                assertEquals(0, ranks.processes.get(r).exitValue(), ranks.describe());
            }
            assertTrue(ranks.out(0).contains("launcher torchrun"), ranks.describe());
            assertTrue(ranks.out(0).contains("Passed: " + size + " ranks over NCCL"), ranks.describe());
        }
    }

    @Test
    void aRankKilledMidRotationEndsTheOthersWithin5s() throws Exception {
        faultEndsTheOthers("KILL", 2, "died");
    }

    @Test
    void aRankStoppedMidRotationEndsTheOthersWithin5s() throws Exception {
        faultEndsTheOthers("STOP", 1, "hung");
    }

    private void faultEndsTheOthers(String signal, int victim, String what) throws Exception {
        int size = 4;
        org.cudaipc4j.cuda.Cuda.init();
        try (org.cudaipc4j.cuda.Context probe = org.cudaipc4j.cuda.Context.retainPrimary(
                org.cudaipc4j.cuda.Device.get(0))) {
            long freeBefore = probe.memInfo().free();
            ranksEnd(signal, victim, what, size);
            // Every rank's process is gone, the driver has their memory back.
            boolean back = org.cudaipc4j.testing.Waits.until(5000, () -> probe.memInfo().free() >= freeBefore - (64L << 20));
            System.out.printf("SIG%s: device memory free before %d MiB, after %d MiB%n", signal, freeBefore >> 20,
                    probe.memInfo().free() >> 20);
            assertTrue(back, "device memory not back: " + (probe.memInfo().free() >> 20) + " MiB free, "
                    + (freeBefore >> 20) + " before");
        }
    }

    private void ranksEnd(String signal, int victim, String what, int size) throws Exception {
        try (NcclRanks ranks = NcclRanks.torchrunStyle(size, logs, r -> Map.of(), "--transport", "nccl",
                "--size", "1M", "--steps", "1000000", "--timeout", "10m")) {
            assertTrue(ranks.awaitRank0("Step 40 done", 120), "the rotation did not get going: " + ranks.describe());
            List<CompletableFuture<Long>> ends = new ArrayList<>();
            for (Process p : ranks.processes) {
                ends.add(p.onExit().thenApply(x -> System.nanoTime()));
            }
            long pid = ranks.processes.get(victim).pid();
            long signalled = System.nanoTime();
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
            assertTrue(kill.waitFor(10, TimeUnit.SECONDS));
            for (int r = 0; r < size; r++) {
                if (r == victim) {
                    continue;
                }
                Process p = ranks.processes.get(r);
                assertTrue(p.waitFor(30, TimeUnit.SECONDS), "rank " + r + " still runs 30 s after the "
                        + signal + ":\n" + ranks.describe());
                long took = ends.get(r).get() - signalled;
                String err = ranks.err(r);
                System.out.printf("SIG%s of rank %d: rank %d ended after %.2f s, exit %d: %s%n", signal, victim, r,
                        took / 1e9, p.exitValue(), err.strip());
                assertEquals(1, p.exitValue(), ranks.describe());
                assertTrue(took <= END_LIMIT_NANOS, "rank " + r + " took " + took / 1e6 + " ms to end");
                assertTrue(err.contains("watchdog") && err.contains("rank " + victim) && err.contains(what),
                        "rank " + r + "'s line: " + err);
                assertTrue(err.strip().lines().filter(l -> l.contains("watchdog")).count() == 1, err);
            }
            if (signal.equals("STOP")) {
                ranks.processes.get(victim).destroyForcibly();
            }
            // The survivors ended through their own exit: the driver removed its files of theirs.
            List<Long> survivors = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                if (r != victim) {
                    survivors.add(ranks.processes.get(r).pid());
                }
            }
            List<String> left = ToolRun.shmFiles("cuda.shm.").stream()
                    .filter(f -> survivors.contains(org.cudaipc4j.cuda.ipc.DriverFiles.producer(f))).toList();
            System.out.println("driver files left by the victim (SIG" + signal + "): " + ToolRun.shmFiles("cuda.shm.")
                    .stream().filter(f -> org.cudaipc4j.cuda.ipc.DriverFiles.producer(f) == ranks.processes.get(victim)
                            .pid()).toList());
            assertTrue(left.isEmpty(), "driver files of survivors left: " + left);
        }
    }

    @Test
    void aRankOnAnotherNcclIsRefusedAtTheRendezvousNamingBothVersions() throws Exception {
        String torchNccl = torchNccl();
        try (NcclRanks ranks = NcclRanks.torchrunStyle(2, logs,
                r -> r == 0 ? Map.of("CUDAIPC4J_NCCL_LIBRARY", torchNccl) : Map.of(),
                "--transport", "nccl", "--size", "1M", "--steps", "1")) {
            for (int r = 0; r < 2; r++) {
                assertTrue(ranks.processes.get(r).waitFor(2, TimeUnit.MINUTES), ranks.describe());
                assertEquals(1, ranks.processes.get(r).exitValue(), ranks.describe());
            }
            String refused = ranks.err(1);
            assertTrue(refused.contains("2.28.9") && refused.contains("2.28.3"), ranks.describe());
            assertEquals(1, refused.strip().lines().count(), "one line: " + refused);
        }
    }

    /** The libnccl.so.2 torch brings, as the Python package finds it. */
    private static String torchNccl() throws Exception {
        Path root = org.cudaipc4j.testing.ProjectRoot.find().orElseThrow();
        ProcessBuilder pb = new ProcessBuilder("python3", "-c",
                "from cudaipc4j import nccl; print(nccl.default_library({}))");
        pb.environment().put("PYTHONPATH", root.resolve("python").toString());
        Process p = pb.start();
        String path = new String(p.getInputStream().readAllBytes()).strip();
        p.waitFor(60, TimeUnit.SECONDS);
        Assumptions.assumeTrue(path.contains("/"), "torch brings no NCCL of its own here: " + path);
        return path;
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
