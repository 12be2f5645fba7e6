package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code bench} checks every option before it runs anything: a bad value is a one-line usage error (exit 64) within
 * a moment, where a bench that started would take a minute.
 */
class BenchOptionsTest {
    @ParameterizedTest(name = "bench {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "--sizes 0                    | --sizes: sizes must be at least 1 byte, got '0'",
        "--sizes 10X                  | --sizes: invalid size '10X'",
        "--sizes 16M,,1G              | --sizes: empty item",
        "--procs 0                    | --procs: process counts must be between 1 and 1024, got 0",
        "--procs 2,x                  | --procs takes process counts like 2,4,8; 'x' is not one",
        "--procs 5000                 | between 1 and 1024, got 5000",
        "--only e2e,warp              | --only: unknown part 'warp'",
        "--procs 1 --only barrier     | --only barrier needs a process count of 2 or more in --procs"
                + " (a round trip takes two), got 1",
        "--procs 1,1 --only steps,barrier | --only barrier needs a process count of 2 or more",
        "--repeat 0                   | --repeat must be at least 1, got 0",
        "--step-count 0               | --step-count must be at least 1, got 0",
        "--step-count 715827883       | --step-count must be at most 715827882, got 715827883",
        "--step-pairs 0               | --step-pairs must be at least 1, got 0",
        "--step-size 0                | --step-size must be at least 1 byte, got '0'",
        "--step-size 1Q               | --step-size: invalid size '1Q'",
        "--step-kernels vec16,fast    | --step-kernels: unknown kernel 'fast' (the kernels are vec16, simple)",
        "--barrier-rounds -5          | --barrier-rounds must be at least 1, got -5",
        "--fill-iterations 0          | --fill-iterations must be at least 1, got 0",
        "--backend gpu                | --backend must be cuda, host or auto, got 'gpu'",
        "--run-args=--size=0          | --run-args: --size must be at least 1 byte",
        "--run-args=--ipc=magic       | --run-args: --ipc",
        "--run-args=--frobnicate      | --run-args: Unknown option: '--frobnicate'",
        "--run-args=devices           | --run-args: 'devices' is a command, not a simpleIPC option",
        "--run-args=frob              | --run-args: 'frob' is not a command of cudaipc4j",
        "--out /dev/null              | --out: /dev/null exists and is not a directory",
        "--out=                       | --out: empty folder name",
        "--out /dev/null/sub          | --out: cannot make the folder /dev/null/sub: ",
    })
    void badOptionIsAUsageErrorBeforeAnythingRuns(String args, String expected) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            CommandLine cl = Main.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            cl.getSubcommands().get("bench").setErr(new PrintWriter(err, true));
            String[] words = ("bench " + args.trim()).split("\\s+");
            return cl.execute(words);
        });
        assertEquals(ExitCodes.USAGE, exit, err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains(expected), err.toString());
        assertFalse(err.toString().contains("Exception"), err.toString());
        assertEquals("", out.toString());
    }

    @org.junit.jupiter.api.Test
    void benchHasTheInteropSubcommand() {
        CommandLine bench = Main.commandLine().getSubcommands().get("bench");
        assertTrue(bench.getSubcommands().get("interop").getCommand() instanceof BenchInteropCommand);
    }
}
