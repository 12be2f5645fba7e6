package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.driver.CudaLibrary;
import org.cudaipc4j.cuda.driver.CudaSettings;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Command-line behaviour of the tool as a process: usage errors and the sample's waiver. */
class SimpleIpcCliTest {
    private static final Duration LIMIT = Duration.ofMinutes(1);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "--size 0                       | --size must be at least 1 byte",
        "--size lots                    | --size: invalid size 'lots'",
        "--size 99999999999999999999G   | --size",
        "--procs-per-device 0           | --procs-per-device must be between 1 and 1024",
        "--steps 0                      | --steps must be at least 1",
        "--steps x                      | --steps",
        "--backend gpu                  | --backend must be cuda, host or auto",
        "--devices a                    | --devices takes device ordinals",
        "--devices 0,0                  | device 0 is listed twice",
        "--devices -1                   | is negative",
        "--timeout 0                    | --timeout must be positive",
        "--timeout soon                 | --timeout: invalid duration",
        "--sim-devices 0                | --sim-devices must be between 1 and 32",
        "--backend cuda --sim-devices 4 | --sim-devices is for simulated devices; --backend cuda runs on GPUs",
        "--devices=                     | --devices: no device given (leave the option out to consider all)",
        "--timeout 999999999999999999h  | --timeout: duration '999999999999999999h' is too long (at most 876000h, a hundred years)",
        "--timeout 2562047788016h       | --timeout: duration '2562047788016h' is too long",
        "--timeout 876001h              | --timeout: duration '876001h' is too long",
        "--inject-corruption -5         | --inject-corruption takes a process number from 0, got -5",
        "--timeout 3000000h             | --timeout: duration '3000000h' is too long",
        "--frobnicate                   | Unknown option: '--frobnicate'",
        "frobnicate                     | 'frobnicate' is not a command of cudaipc4j; the commands are devices, bench",
        "--kernel fast                  | --kernel must be vec16 or simple, got 'fast'",
        "--verify gpu                   | --verify must be host or device, got 'gpu'",
        "--ipc magic                    | --ipc",
        "--sync spin                    | --sync must be counters or events, got 'spin'",
        "--devices 0 1                  | '1' is not a command of cudaipc4j",
        "--backend host --devices 0,5   | device 5 does not exist",
    })
    void badInputIsAOneLineUsageError(String args, String expected) {
        ToolRun run = ToolRun.run(LIMIT, args.trim().split("\\s+"));
        // Nothing left either where children were started before the bad device list was found.
        run.assertExit(ExitCodes.USAGE).assertNothingLeft();
        assertEquals(1, run.err.lines().count(), run.err);
        assertTrue(run.err.contains(expected), run.err);
        assertFalse(run.err.contains("Exception") || run.err.contains("\tat "), run.err);
        assertEquals("", run.out);
    }

    /** More processes than a control block holds, known only once the devices are counted: a usage error too. */
    @Test
    void tooManyProcessesInAllIsAUsageError() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--size", "4K", "--procs-per-device", "600");
        run.assertExit(ExitCodes.USAGE).assertNothingLeft();
        assertEquals("cudaipc4j: 2 devices x 600 processes per device exceeds the limit of 1024 processes (lower"
                + " --procs-per-device, or choose fewer with --devices)\n", run.err);
    }

    /** A corruption injected into a process the run does not have would pass silently: a usage error. */
    @Test
    void corruptionOfAProcessTheRunHasNotIsAUsageError() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--size", "4K", "--inject-corruption", "5");
        run.assertExit(ExitCodes.USAGE).assertNothingLeft();
        assertEquals("cudaipc4j: --inject-corruption: there is no process 5 in a run of 2 (0 to 1)\n", run.err);
    }

    @Test
    void cudaBackendWithoutAGpuIsWaived() {
        assumeFalse(CudaLibrary.isAvailable(), "a CUDA driver is present: the waiver path is not reachable here");
        ToolRun run = ToolRun.run(LIMIT, "--backend", "cuda");
        run.assertExit(ExitCodes.WAIVED).assertNothingLeft();
        // One line on standard error, as every waived result; standard output carries results only.
        assertEquals("", run.out);
        assertEquals(1, run.err.lines().count(), run.err);
        assertTrue(run.err.startsWith("cudaipc4j: waived: No CUDA devices support IPC: no NVIDIA driver found"),
                run.err);
    }

    @Test
    void aWaivedRunsJsonSaysWhy() {
        JavaProcess.Result r = JavaProcess.run(LIMIT, org.cudaipc4j.cli.Main.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1"), "--backend", "cuda",
                "--json");
        assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
        JsonObject report = JsonParser.parseString(r.stdout()).getAsJsonObject();
        assertEquals("waived", report.get("result").getAsString(), r.stdout());
        assertEquals("no NVIDIA driver found: could not load libcudaipc4j-absent.so.1",
                report.get("reason").getAsString(), r.stdout());
    }

    @Test
    void autoWithoutAGpuSaysWhyItSimulates() {
        assumeFalse(CudaLibrary.isAvailable(), "a CUDA driver is present: auto picks the GPU");
        ToolRun run = ToolRun.run(LIMIT, "--size", "4K");
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        String first = run.out.lines().findFirst().orElse("");
        assertTrue(first.startsWith("Backend: host (auto: no CUDA devices support IPC"), first);
        assertTrue(first.contains("simulated"), first);
    }

    @Test
    void helpListsTheOptionsAndExitCodes() {
        ToolRun run = ToolRun.run(LIMIT, "--help");
        run.assertExit(ExitCodes.OK);
        for (String option : new String[] {"--size", "--procs-per-device", "--devices", "--steps", "--backend",
                "--timeout", "--json", "devices"}) {
            assertTrue(run.out.contains(option), option + " missing from help:\n" + run.out);
        }
        assertTrue(run.out.contains("Exit codes:") && run.out.contains("64") && run.out.contains("usage error"), run.out);
        // Lines break between phrases: no abbreviation split over two lines, lists named once.
        assertFalse(run.out.lines().anyMatch(l -> l.endsWith(" e.") || l.endsWith("(e.")), run.out);
        assertTrue(run.out.contains("[--devices=N[,N...]]"), run.out);
        assertFalse(run.out.contains("]]..."), run.out);
    }

    /** Help asked beside a value an option refuses is the help of the command it was asked of, exit 0. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--size 0 --help        | Usage: cudaipc4j [",
        "-h --timeout soon      | Usage: cudaipc4j [",
        "bench --sizes 1x -h    | Usage: cudaipc4j bench [",
    })
    void helpBesideABadValueIsTheHelp(String args, String start) {
        ToolRun run = ToolRun.run(LIMIT, args.split(" "));
        run.assertExit(ExitCodes.OK);
        assertTrue(run.out.startsWith(start), run.out + run.err);
        assertEquals("", run.err);
    }

    @Test
    void aBadValueAfterDoubleDashHelpIsNoHelp() {
        assertFalse(Main.asksForHelp(new String[] {"--size", "0", "--", "--help"}));
        assertTrue(Main.asksForHelp(new String[] {"--size", "0", "--help", "--"}));
    }

    @Test
    void benchHelpNamesListsOnce() {
        ToolRun run = ToolRun.run(LIMIT, "bench", "--help");
        run.assertExit(ExitCodes.OK);
        for (String synopsis : new String[] {"[--only=PART[,PART...]]", "[--procs=N[,N...]]", "[--sizes=SIZE[,SIZE...]]"}) {
            assertTrue(run.out.contains(synopsis), synopsis + " missing:\n" + run.out);
        }
        assertFalse(run.out.contains("]]..."), run.out);
    }

    @Test
    void hostRunEndsWithASummaryLine() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "host", "--size", "4K", "--kernel", "simple");
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        String last = run.out.lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.matches("Passed: 2 processes on 2 simulated devices, 2 x 4 KiB verified, 1 round, \\d+\\.\\d\\d s"),
                last);
        assertTrue(run.out.contains("Note: --kernel simple is for GPUs"), run.out);
    }
}
