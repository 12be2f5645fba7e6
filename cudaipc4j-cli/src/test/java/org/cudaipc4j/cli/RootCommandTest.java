package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.cudaipc4j.tool.ExitCodes;
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
                new String[] {"--devices=1", "--size", "64m"},
                new String[] {"--transport", "ipc", "--timeout", "500ms", "--kernel", "SIMPLE", "--verify", "DEVICE"},
                new String[] {"--backend=AUTO", "--sync=Counters", "--timeout=2m", "--size=1KiB", "--ipc=Pool"},
                new String[] {"--timeout", "7", "--size", "4095", "--backend", "cuda", "--transport=IPC"},
                new String[] {"--backend", "Host", "--timeout", "1h", "--size", "1T", "--steps", "999999999"});
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
                new String[] {"--devices="}, new String[] {"--backend", "cuda", "--sim-devices", "2"},
                new String[] {"--timeout", "999999999999999999h"}, new String[] {"--transport", "mpi"},
                new String[] {"--kernel", "fast"})) {
            RootCommand quick = RootCommand.withoutPicocli(args);
            // Refused by the value's converter (no command) or by the checks across options (no options).
            assertNull(quick == null ? null : quick.optionsOrNull(), String.join(" ", args));
        }
        ToolRun r = ToolRun.run(Duration.ofSeconds(60), "--ipc", "nvlink", "--backend", "host");
        assertEquals(ExitCodes.USAGE, r.exitCode, r.err);
        assertEquals("cudaipc4j: --ipc: must be legacy, vmm or pool, got 'nvlink' (try --help)", r.err.strip());
    }

    @Test
    void eachRefusalIsOneLineInTheOptionsWords() {
        Map<String, String> refusals = new LinkedHashMap<>();
        refusals.put("--size 0", "--size must be at least 1 byte, got '0'");
        refusals.put("--size 12Q", "--size: invalid size '12Q' (expected e.g. 4096, 64M, 1G)");
        refusals.put("--size 99999999999T", "--size: size '99999999999T' is too large");
        refusals.put("--timeout 0s", "--timeout must be positive, got '0s'");
        refusals.put("--timeout 999999999999999999h",
                "--timeout: duration '999999999999999999h' is too long (at most 876000h, a hundred years)");
        refusals.put("--timeout 3d", "--timeout: invalid duration '3d' (expected e.g. 500ms, 30s, 2m)");
        refusals.put("--backend gpu", "--backend must be cuda, host or auto, got 'gpu'");
        refusals.put("--kernel fast", "--kernel must be vec16 or simple, got 'fast'");
        refusals.put("--verify cpu", "--verify must be host or device, got 'cpu'");
        refusals.put("--ipc nvlink", "--ipc: must be legacy, vmm or pool, got 'nvlink'");
        refusals.put("--sync fence", "--sync must be counters or events, got 'fence'");
        refusals.put("--transport mpi", "--transport must be ipc or nccl, got 'mpi'");
        refusals.put("--steps 0", "--steps must be at least 1, got 0");
        refusals.put("--devices 0,x", "--devices takes device ordinals like 0,1; 'x' is not one");
        refusals.put("--backend cuda --sim-devices 2", "--sim-devices is for simulated devices; --backend cuda runs"
                + " on GPUs (choose them with --devices)");
        refusals.forEach((line, message) -> {
            assertEquals(message, Main.usageProblem(List.of(line.split(" "))), line);
        });
    }

    @Test
    void everyOptionOfTheCommandIsKnownWithoutPicocliAndNoOther() {
        Set<String> picocli = new HashSet<>();
        for (CommandLine.Model.OptionSpec o : Main.commandLine().getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                picocli.addAll(List.of(o.names()));
            }
        }
        // Derived from the declarations, and refused at once for an option it could not set.
        assertEquals(picocli, RootCommand.quickOptions().keySet());
    }

    @Test
    void everyOptionGivenAloneWithItsDefaultParsesAsPicocliParsesIt() {
        for (CommandLine.Model.OptionSpec o : Main.commandLine().getCommandSpec().options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            String[] args = o.arity().max() == 0 ? new String[] {o.longestName()}
                    : new String[] {o.longestName(), o.defaultValue() != null ? o.defaultValue()
                            : o.longestName().equals("--devices") ? "0" : "2"};
            RootCommand quick = RootCommand.withoutPicocli(args);
            assertNotNull(quick, String.join(" ", args));
            assertEquals(byPicocli(args), quick.optionsOrNull(), String.join(" ", args));
        }
    }

    @Test
    void theBuiltTableGivesWhatTheAnnotationsSay() {
        List<String> fields = List.of(RootCommandQuickOptions.FIELDS);
        int annotated = 0;
        for (java.lang.reflect.Field field : RootCommand.class.getDeclaredFields()) {
            CommandLine.Option o = field.getAnnotation(CommandLine.Option.class);
            if (o == null) {
                continue;
            }
            annotated++;
            int i = fields.indexOf(field.getName());
            assertTrue(i >= 0, field.getName() + " is in the table");
            assertEquals(List.of(o.names()), List.of(RootCommandQuickOptions.NAMES[i]), field.getName());
            assertEquals(o.converter().length == 0 ? null : o.converter()[0],
                    RootCommandQuickOptions.converter(i) == null ? null
                            : RootCommandQuickOptions.converter(i).getClass(), field.getName());
            assertEquals("__no_default_value__".equals(o.defaultValue()) ? null : o.defaultValue(),
                    RootCommandQuickOptions.DEFAULT_VALUES[i], field.getName());
            assertEquals(field.getType() == boolean.class, RootCommandQuickOptions.FLAGS[i], field.getName());
        }
        assertEquals(annotated, fields.size());
    }

    /** {@code help [COMMAND]} prints what {@code [COMMAND] --help} prints; an unknown command is a usage error. */
    @Test
    void helpNamesACommandOrTheTool() {
        for (String[] line : List.of(new String[] {}, new String[] {"interop"}, new String[] {"bench"},
                new String[] {"devices"})) {
            String[] help = new String[line.length + 1];
            help[0] = "help";
            System.arraycopy(line, 0, help, 1, line.length);
            String[] dashDash = java.util.Arrays.copyOf(line, line.length + 1);
            dashDash[line.length] = "--help";
            Output byHelp = execute(help);
            assertEquals(ExitCodes.OK, byHelp.exit, byHelp.err);
            assertEquals(execute(dashDash).out, byHelp.out, String.join(" ", help));
            assertTrue(byHelp.out.startsWith("Usage: cudaipc4j" + (line.length == 0 ? "" : " " + line[0])),
                    byHelp.out);
        }
        Output unknown = execute("help", "frobnicate");
        assertEquals(ExitCodes.USAGE, unknown.exit, unknown.err);
        assertEquals(1, unknown.err.lines().count(), unknown.err);
        assertTrue(unknown.err.contains("frobnicate"), unknown.err);
    }

    private record Output(int exit, String out, String err) {}

    private static Output execute(String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Output(exit, out.toString(), err.toString());
    }
}
