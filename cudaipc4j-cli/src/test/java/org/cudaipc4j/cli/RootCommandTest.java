package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.simpleipc.ExitCodes;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The simpleIPC options parsed without picocli are the ones picocli gives, and anything else is left to it. */
class RootCommandTest {
    private static SimpleIpcOptions byPicocli(String... args) {
        CommandLine cl = Main.commandLine();
        cl.parseArgs(args);
        return ((RootCommand) cl.getCommand()).options();
    }

    @Test
    void commandLinesOfOptionsGiveWhatPicocliGives() {
        List<String[]> lines = List.of(
                new String[] {},
                new String[] {"--json"},
                new String[] {"--ipc", "pool"},
                new String[] {"--ipc=vmm", "--json", "--size", "1M"},
                new String[] {"--size=3G", "--procs-per-device", "4", "--devices", "0,1", "--steps=100"},
                new String[] {"--backend", "host", "--sim-devices", "3", "--timeout", "30s", "--kernel", "simple"},
                new String[] {"--verify=host", "--sync", "events", "--inject-corruption", "1", "--ipc", "LEGACY"},
                new String[] {"--devices=1", "--size", "64m"});
        for (String[] args : lines) {
            RootCommand quick = RootCommand.withoutPicocli(args);
            assertNotNull(quick, String.join(" ", args));
            assertEquals(byPicocli(args), quick.optionsOrNull(), String.join(" ", args));
        }
    }

    @Test
    void everythingElseIsLeftToPicocli() {
        List<String[]> lines = List.of(
                new String[] {"devices"}, new String[] {"bench", "--only", "fill"}, new String[] {"--help"},
                new String[] {"-h"}, new String[] {"-V"}, new String[] {"--version"}, new String[] {"--bogus", "1"},
                new String[] {"--size"}, new String[] {"--size", "--json"}, new String[] {"--json", "--json"},
                new String[] {"--ipc", "vmm", "--ipc=pool"}, new String[] {"--json=true"},
                new String[] {"--steps", "0x10"}, new String[] {"--steps", "+3"}, new String[] {"--steps", "-1"},
                new String[] {"--devices", "-1"}, new String[] {"@args.txt"}, new String[] {"--size", "@big"},
                new String[] {"--steps", "9999999999"}, new String[] {"--", "--json"}, new String[] {"extra"},
                new String[] {"--json", "devices"});
        for (String[] args : lines) {
            assertNull(RootCommand.withoutPicocli(args), String.join(" ", args));
        }
    }

    @Test
    void aValueTheOptionsRefuseIsReportedByPicocli() {
        for (String[] args : List.of(new String[] {"--size", "0"}, new String[] {"--ipc", "nvlink"},
                new String[] {"--timeout", "0s"}, new String[] {"--devices", "0,0"}, new String[] {"--size="},
                new String[] {"--devices="}, new String[] {"--backend", "cuda", "--sim-devices", "2"})) {
            RootCommand quick = RootCommand.withoutPicocli(args);
            assertNotNull(quick, String.join(" ", args));
            assertNull(quick.optionsOrNull(), String.join(" ", args));
        }
        ToolRun r = ToolRun.run(Duration.ofSeconds(60), "--ipc", "nvlink", "--backend", "host");
        assertEquals(ExitCodes.USAGE, r.exitCode, r.err);
        assertEquals("cudaipc4j: --ipc: must be legacy, vmm or pool, got 'nvlink' (try --help)", r.err.strip());
    }

    @Test
    void everyOptionOfTheCommandIsKnownWithoutPicocliAndNoOther() {
        Set<String> picocli = new HashSet<>();
        for (CommandLine.Model.OptionSpec o : Main.commandLine().getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                picocli.add(o.longestName());
            }
        }
        Set<String> quick = new HashSet<>(RootCommand.FLAG_OPTIONS);
        quick.addAll(RootCommand.valueOptionNames());
        assertEquals(picocli, quick);
    }
}
