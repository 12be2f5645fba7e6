package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.simpleipc.DeviceSelection;
import org.cudaipc4j.simpleipc.SimpleIpcOptions;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Sync;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Verify;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A configuration rendered as arguments parses back, by picocli and without it, into the same configuration. */
class OptionsRenderTest {
    private static SimpleIpcOptions options(long bytes, int procs, List<Integer> devices, int rounds,
            BackendKind backend, int simulated, Duration timeout, boolean json, int corrupt, Fill kernel,
            Verify verify, IpcMode ipc, Sync sync) {
        return new SimpleIpcOptions(bytes, procs, devices, rounds, backend, simulated, timeout, json, corrupt, kernel,
                verify, ipc, sync, SimpleIpcSettings.WAIT_TIMEOUT.get());
    }

    @Test
    void renderedArgumentsParseBackIntoTheSameConfiguration() {
        List<SimpleIpcOptions> table = List.of(
                SimpleIpcOptions.defaults(),
                options(4096, 3, List.of(0), 30, BackendKind.HOST, 2, Duration.ofSeconds(120), true, -1,
                        Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.COUNTERS),
                options(1L << 30, 4, List.of(2, 0, 1), 999, BackendKind.CUDA, 2, Duration.ofMillis(1500), false, 1,
                        Fill.SIMPLE, Verify.HOST, IpcMode.VMM, Sync.EVENTS),
                options(4095, 1, List.of(), 1, BackendKind.AUTO, 7, Duration.ofHours(2), true, 0, Fill.VEC16,
                        Verify.HOST, IpcMode.POOL, Sync.COUNTERS),
                options(3L << 40, 2, List.of(5), 2, BackendKind.HOST, SimpleIpcOptions.MAX_DEVICES,
                        Duration.ofMinutes(3), false, -1, Fill.SIMPLE, Verify.DEVICE, IpcMode.LEGACY, Sync.EVENTS));
        for (SimpleIpcOptions options : table) {
            String[] args = options.toArguments().toArray(String[]::new);
            CommandLine cl = Main.commandLine();
            cl.parseArgs(args);
            assertEquals(options, ((RootCommand) cl.getCommand()).options(), String.join(" ", args));
            RootCommand quick = RootCommand.withoutPicocli(args);
            assertNotNull(quick, String.join(" ", args));
            assertEquals(options, quick.optionsOrNull(), String.join(" ", args));
        }
    }

    @Test
    void theDefaultsAreThoseOfTheToolWithoutArguments() {
        CommandLine cl = Main.commandLine();
        cl.parseArgs();
        assertEquals(SimpleIpcOptions.defaults(), ((RootCommand) cl.getCommand()).options());
    }

    @Test
    void theBenchStepRunGivesTheOptionsItAlwaysGave() {
        SimpleIpcOptions d = SimpleIpcOptions.defaults();
        SimpleIpcOptions step = new SimpleIpcOptions(4096, 3, List.of(0), 10, BackendKind.HOST, d.simulatedDevices(),
                d.timeout(), true, d.corruptProcess(), d.kernel(), d.verify(), d.ipc(), d.sync(), d.hostWaitTimeout());
        String[] before = {"--backend", "host", "--devices", "0", "--procs-per-device", "3", "--size", "4096",
                "--steps", "10", "--json"};
        assertEquals(RootCommand.withoutPicocli(before).optionsOrNull(),
                RootCommand.withoutPicocli(step.toArguments().toArray(String[]::new)).optionsOrNull());
    }

    @Test
    void devicesAreOneTypedValueNotARepeatedOption() {
        CommandLine cl = Main.commandLine();
        cl.parseArgs("--devices", " 2, 0");
        assertEquals(new DeviceSelection(List.of(2, 0)), ((RootCommand) cl.getCommand()).devices);
        assertEquals(DeviceSelection.all(), RootCommand.withoutPicocli(new String[] {"--json"}).devices);
        org.junit.jupiter.api.Assertions.assertFalse(cl.getCommandSpec().findOption("--devices").isMultiValue());
        org.junit.jupiter.api.Assertions.assertThrows(CommandLine.OverwrittenOptionException.class,
                () -> Main.commandLine().parseArgs("--devices", "0", "--devices", "1"));
    }
}
