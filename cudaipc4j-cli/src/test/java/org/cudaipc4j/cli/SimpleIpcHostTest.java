package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.regex.Pattern;
import org.cudaipc4j.simpleipc.SimpleIpcChild;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The whole program on the host backend, with real processes: what CI can run without a GPU. */
class SimpleIpcHostTest {
    private static final Duration LIMIT = Duration.ofMinutes(3);

    @ParameterizedTest(name = "{0} simulated devices x {1} procs, {2} per buffer, {3} round(s)")
    @CsvSource({
        "1, 1, 64M,     1",
        "2, 1, 1,       1",
        "4, 1, 4095,    3",
        "8, 1, 1048583, 1",
        "1, 3, 3,       3",
        "2, 3, 64M,     1",
        "4, 3, 65537,   3",
        "8, 3, 17,      1",
    })
    void runsTheSampleOnSimulatedDevices(int devices, int procsPerDevice, String size, int rounds) {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--sim-devices", Integer.toString(devices),
                "--procs-per-device", Integer.toString(procsPerDevice), "--size", size,
                "--steps", Integer.toString(rounds));
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        int n = devices * procsPerDevice;
        assertTrue(run.out.lines().findFirst().orElse("").contains("simulated"), run.out);
        assertTrue(run.out.contains("PP: lshmName = cudaipc4j-" + run.pid + "-"), run.out);
        assertEquals(n, run.count("^CP: lshmName = "), run.out);
        assertEquals((long) n * rounds, run.count("^Step \\d+ done$"), run.out);
        for (int p = 0; p < n; p++) {
            int device = p / procsPerDevice;
            assertTrue(run.out.contains("Process " + p + ": Starting on device " + device + "..."), run.out);
            assertTrue(run.out.contains("Process " + p + ": verifying..."), run.out);
            assertTrue(run.out.contains("Process " + p + " complete!"), run.out);
        }
        assertEquals(0, run.count("mismatch|failed"), run.out);
    }

    @ParameterizedTest(name = "--ipc {0}")
    @CsvSource({"vmm", "pool"})
    void memoryFilesTravelOverTheGroupsSocket(String ipc) {
        // The host backend simulates VMM and pool memory with memfd descriptors passed over SCM_RIGHTS.
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--sim-devices", "2", "--procs-per-device", "2",
                "--size", "1048583", "--steps", "2", "--ipc", ipc);
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        assertEquals(4, run.count("^Process \\d+ complete!$"), run.out);
        assertEquals(0, run.count("mismatch|failed"), run.out);
    }

    /** A failed run on {@code devices} simulated devices where process 0, and it alone, found a mismatch. */
    private static ToolRun runWithProcess1Corrupting(int devices) {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--sim-devices", Integer.toString(devices), "--size",
                "1000", "--inject-corruption", "1");
        run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
        assertTrue(run.out.contains("Process 0: Verification mismatch at offset 0: expected 1, got 2 (1000 of 1000 bytes wrong)"),
                run.out);
        assertEquals(1, run.count("^Process \\d+: Verification mismatch"), run.out);
        return run;
    }

    @Test
    void aCorruptedBufferFailsTheRun() {
        // Process 1 writes a wrong value into buffer 0 in the last step: process 0's check must catch it. Two
        // processes: process 1's own buffer was last written by process 0 before process 0's check, so the abort
        // that follows cannot cut process 1's wait for that write short.
        ToolRun run = runWithProcess1Corrupting(2);
        assertTrue(run.out.contains("Process 0 failed ("), run.out);
        assertTrue(run.out.contains("Process 1 complete!"), run.out);
        String last = run.out.lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.startsWith("Failed: 1 of 2 processes on 2 simulated devices, "), last);
    }

    @Test
    void afterACorruptedBufferOtherProcessesReportNoFalseMismatch() {
        // Three processes: process 0's abort may release process 1's wait before process 2's last write to buffer 1
        // landed. Process 1 then either verifies a complete buffer or says its check was abandoned, never a mismatch.
        ToolRun run = runWithProcess1Corrupting(3);
        for (int p = 1; p < 3; p++) {
            assertEquals(1, run.count("^Process " + p + " complete!$")
                    + run.count("^Process " + p + ": verification abandoned \\(at offset \\d+: .*\\): the group was aborted by"
                    + " process 0: verification failed, which may have cut short"), run.out);
        }
    }

    @Test
    void aChildKilledMidRunEndsTheRunAndLeavesNothing() {
        Process tool = ToolRun.start("--backend", "host", "--sim-devices", "3", "--size", "8M", "--steps", "100000");
        ToolRun run = ToolRun.finish(tool, LIMIT, line -> line.equals("Step 5 done"),
                p -> p.children()
                        .filter(c -> ToolRun.commandLine(c).contains(SimpleIpcChild.class.getName() + " 2 "))
                        .forEach(ProcessHandle::destroyForcibly));
        run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
        assertTrue(Pattern.compile("^Process 2 failed \\(.*(signal 9|SIGKILL).*\\)$", Pattern.MULTILINE)
                .matcher(run.out).find(), run.out);
    }

    @Test
    void jsonReportsTheResultAndPhases() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--size", "1M", "--json");
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        JsonObject json = JsonParser.parseString(run.out).getAsJsonObject();
        assertEquals("passed", json.get("result").getAsString());
        assertEquals("host", json.get("backend").getAsString());
        assertTrue(json.get("simulated").getAsBoolean());
        assertEquals(2, json.get("processes").getAsInt());
        assertEquals(1 << 20, json.get("bytesPerBuffer").getAsLong());
        JsonObject parent = json.getAsJsonObject("parentMs");
        assertTrue(parent.get("exported").getAsDouble() >= parent.get("childrenStarted").getAsDouble(), run.out);
        assertEquals(2, json.getAsJsonArray("childrenMs").size());
        JsonObject child = json.getAsJsonArray("childrenMs").get(1).getAsJsonObject();
        assertTrue(child.get("verified").getAsDouble() >= child.get("steps").getAsDouble(), run.out);
        // Human output moved to stderr so that stdout parses.
        assertTrue(run.err.contains("Process 1 complete!"), run.err);
    }
}
