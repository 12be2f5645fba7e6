package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/compare-sample.sh} without a GPU: stand-ins for the sample and for {@code nvcc} record what they
 * were run with, so the order of the runs, their environment and arguments, the patch for step runs and the
 * failure paths are checked; the wall times themselves are whatever the stand-ins took.
 */
class CompareSampleScriptTest {
    @TempDir
    Path tmp;

    private Path root;
    private Path record;

    @BeforeEach
    void setUp() {
        Optional<Path> found = ProjectRoot.find();
        Assumptions.assumeTrue(found.isPresent(), "skipped: not run inside the project's checkout");
        root = found.get();
        record = tmp.resolve("record");
    }

    /** A stand-in sample: records its environment, and prints {@code output}. */
    private Path sample(String output) throws IOException {
        return script(tmp.resolve("simpleIPC"), "#!/bin/bash\n"
                + "echo \"sample procs=${SIMPLEIPC_PROCS_PER_GPU:-} rounds=${SIMPLEIPC_ROUNDS:-}"
                + " queues=${CUDA_DEVICE_MAX_CONNECTIONS:-}\" >> " + record + "\n"
                + "echo '" + output + "'\n");
    }

    private static Path script(Path path, String text) throws IOException {
        Files.writeString(path, text);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
        return path;
    }

    private record Result(int exit, String out) {}

    private Result run(List<String> args, String... env) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", root.resolve("scripts/compare-sample.sh").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("out").toFile());
        pb.environment().put("CUDA_DEVICE_MAX_CONNECTIONS", "1"); // a user's setting the script must not pass on
        for (String e : env) {
            pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
        }
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "compare-sample.sh did not end");
        return new Result(p.exitValue(), Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8));
    }

    private List<String> recorded() throws IOException {
        return Files.readAllLines(record);
    }

    @Test
    void runsAlternateAfterAWarmUpOfEachAndEveryCommandIsSummarised() throws Exception {
        Path sample = sample("Process 0 complete!");
        Result r = run(List.of("--sample-one-queue", "--cmd", "first=echo first >> " + record,
                "--cmd", "second=echo second >> " + record, sample.toString(), "3"));
        assertEquals(0, r.exit(), r.out());
        List<String> oneTurn = List.of("sample procs= rounds= queues=", "sample procs= rounds= queues=1", "first",
                "second");
        List<String> expected = new ArrayList<>();
        for (int turn = 0; turn < 1 + 3; turn++) { // the warm-up, then 3 runs
            expected.addAll(oneTurn);
        }
        assertEquals(expected, recorded());
        assertEquals(3, r.out().lines().filter(l -> l.startsWith("run ")).count(), r.out());
        assertTrue(r.out().contains("Medians of 3, end to end:"), r.out());
        for (String label : List.of("[0] C++ sample", "[1] C++ sample, CUDA_DEVICE_MAX_CONNECTIONS=1", "[2] first",
                "[3] second")) {
            assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith(label) && l.endsWith("x the sample")),
                    label + " has no summary line:\n" + r.out());
        }
        assertTrue(r.out().lines().anyMatch(l -> l.contains("[0] C++ sample") && l.contains("1.00x the sample")),
                r.out());
    }

    @Test
    void withoutTheSampleTheCommandsAloneAreComparedWithTheFirst() throws Exception {
        Result r = run(List.of("--no-sample", "--runs", "5", "--cmd", "a=echo a >> " + record,
                "--cmd", "b=echo b >> " + record + "; sleep 0.05"));
        assertEquals(0, r.exit(), r.out());
        List<String> expected = new ArrayList<>();
        for (int turn = 0; turn < 1 + 5; turn++) {
            expected.addAll(List.of("a", "b"));
        }
        assertEquals(expected, recorded(), "no sample ran, nor was one built");
        assertTrue(r.out().contains("Medians of 5, end to end:"), r.out());
        for (String label : List.of("[0] a", "[1] b")) {
            String line = r.out().lines().filter(l -> l.trim().startsWith(label) && l.contains("(IQR "))
                    .findFirst().orElseThrow(() -> new AssertionError(label + " has no summary line:\n" + r.out()));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\] \\S+ +([0-9.]+) ms"
                    + " \\(IQR ([0-9.]+)-([0-9.]+), range ([0-9.]+)-([0-9.]+)\\) +[0-9.]+x \\[0\\]$").matcher(line);
            assertTrue(m.find(), line);
            double median = Double.parseDouble(m.group(1));
            double q1 = Double.parseDouble(m.group(2));
            double q3 = Double.parseDouble(m.group(3));
            double lo = Double.parseDouble(m.group(4));
            double hi = Double.parseDouble(m.group(5));
            assertTrue(lo <= q1 && q1 <= median && median <= q3 && q3 <= hi, line);
        }
        assertTrue(r.out().lines().anyMatch(l -> l.contains("[0] a") && l.endsWith("1.00x [0]")), r.out());
        for (List<String> args : List.of(List.of("--no-sample", tmp.toString()), List.of("--no-sample", "--steps",
                "2:3:7"), List.of("--no-sample", "--sample-one-queue"))) {
            Result refused = run(args);
            assertEquals(64, refused.exit(), args + ":\n" + refused.out());
            assertTrue(refused.out().startsWith("compare-sample: --no-sample takes no SAMPLE"), refused.out());
        }
    }

    @Test
    void stepRunsBuildThePatchedSampleAndGiveEveryCommandTheSameRounds() throws Exception {
        // A stand-in nvcc: keeps the source it was given and builds a recording sample.
        Path built = tmp.resolve("built.cu");
        Path nvcc = script(tmp.resolve("nvcc"), "#!/bin/bash\n"
                + "for a in \"$@\"; do case $a in *.cu) cp \"$a\" " + built + ";; esac; done\n"
                + "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                + "cp " + sample("Process 0 complete!") + " \"$out\"\n");
        Result r = run(List.of("--steps", "2:3:7", "--cmd", "tool=echo tool >> " + record, "--runs", "2"),
                "NVCC=" + nvcc);
        assertEquals(0, r.exit(), r.out());
        assertTrue(Files.readString(built).contains("envCount(\"SIMPLEIPC_ROUNDS\")"), "the patch was not applied");
        List<String> expected = new ArrayList<>(List.of("sample procs=2 rounds=3 queues=",
                "tool --procs-per-device 2 --steps 3"));
        for (int pair = 0; pair < 2; pair++) {
            expected.addAll(List.of("sample procs=2 rounds=3 queues=", "sample procs=2 rounds=7 queues=",
                    "tool --procs-per-device 2 --steps 3", "tool --procs-per-device 2 --steps 7"));
        }
        assertEquals(expected, recorded());
        assertTrue(r.out().contains("Medians of 2, per step, marginal (2 processes):"), r.out());
    }

    @Test
    void aFailedRunOrAMismatchStopsTheComparison() throws Exception {
        Result failed = run(List.of("--cmd", "broken=echo oops; exit 3", sample("ok").toString(), "2"));
        assertEquals(1, failed.exit(), failed.out());
        assertTrue(failed.out().contains("'broken' exited 3") && failed.out().contains("oops"), failed.out());

        Files.deleteIfExists(record);
        Result mismatch = run(List.of("--cmd", "x=true",
                sample("Process 1: Verification mismatch at 5: 0 != 1").toString(), "2"));
        assertEquals(1, mismatch.exit(), mismatch.out());
        assertTrue(mismatch.out().contains("the sample reported a mismatch"), mismatch.out());
        assertEquals(1, recorded().size(), "the comparison went on after the mismatch");
    }

    @Test
    void badArgumentsAreUsageErrors() throws Exception {
        for (List<String> args : List.of(List.of("--steps", "2:5"), List.of("--steps", "2:5:5"),
                List.of("--frobnicate"), List.of("--cmd", "no-label"), List.of("a", "b", "c"),
                List.of(tmp.toString(), "0"), List.of(tmp.resolve("absent").toString()))) {
            Result r = run(args);
            assertEquals(64, r.exit(), args + ":\n" + r.out());
            assertEquals(1, r.out().lines().count(), args + ":\n" + r.out());
            assertTrue(r.out().startsWith("compare-sample: "), r.out());
        }
    }
}
