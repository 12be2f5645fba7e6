package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Sync;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Verify;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill;
import org.junit.jupiter.api.Test;

/** The children's settings arrive as the parent wrote them, every field, and nothing else is taken for them. */
class ChildSettingsTest {
    private static SimpleIpcOptions run(BackendKind backend, Fill kernel, Verify verify, IpcMode ipc, Sync sync,
            boolean json, List<Integer> devices) {
        return new SimpleIpcOptions(3L << 30, 4, devices, 100, backend, 7, Duration.ofMillis(123_456), json, 2,
                kernel, verify, ipc, sync, Duration.ofSeconds(5, 1));
    }

    @Test
    void everyFieldRoundTrips() {
        List<ChildSettings> all = List.of(
                new ChildSettings(0, "cudaipc4j-abc", BackendKind.CUDA, null, null,
                        run(BackendKind.AUTO, Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.COUNTERS, false,
                                List.of())),
                new ChildSettings(31, "seg", BackendKind.HOST, Path.of("/tmp/a b/sock"), Path.of("/tmp/ph\u00e4se-1"),
                        run(BackendKind.HOST, Fill.SIMPLE, Verify.HOST, IpcMode.VMM, Sync.EVENTS, true,
                                List.of(2, 0, 5))),
                new ChildSettings(1, "s", BackendKind.CUDA, Path.of("/x"), null,
                        run(BackendKind.CUDA, Fill.SIMPLE, Verify.HOST, IpcMode.POOL, Sync.COUNTERS, false,
                                List.of(1))),
                new ChildSettings(0, "q", BackendKind.HOST, null, Path.of("/p"),
                        run(BackendKind.HOST, Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.EVENTS, true,
                                List.of()), true));
        for (ChildSettings settings : all) {
            assertEquals(settings, ChildSettings.decode(settings.encode()));
            assertEquals(settings, ChildSettings.fromArguments(settings.arguments().toArray(String[]::new)));
        }
    }

    @Test
    void theEncodingsBytesArePinned() {
        ChildSettings settings = new ChildSettings(1, "ab", BackendKind.HOST, null, null, new SimpleIpcOptions(
                4096, 1, List.of(3), 2, BackendKind.AUTO, 2, Duration.ofSeconds(120), false, -1, Fill.VEC16,
                Verify.DEVICE, IpcMode.VMM, Sync.EVENTS, Duration.ofSeconds(60)));
        byte[] bytes = Base64.getUrlDecoder().decode(settings.encode());
        assertEquals("435302" // magic, version
                + "0100000001" + "02000000026162" + "0302" // id 1, segment "ab", backend host
                + "0a0000000000001000" + "0b00000001" + "0c0000000100000003" // bytes, procs per device, devices
                + "0d00000002" + "0e03" + "0f00000002" // rounds, run backend auto, simulated devices
                + "10000000000000007800000000" + "1100" + "12ffffffff" // timeout 120 s, json, corrupt
                + "1302" + "1401" + "1502" + "1602" // kernel vec16, verify device, ipc vmm, sync events
                + "17000000000000003c00000000", // host wait timeout 60 s
                HexFormat.of().formatHex(bytes));
        ChildSettings quiet = new ChildSettings(settings.id(), settings.segment(), settings.backend(), null, null,
                settings.run(), true);
        assertEquals("435302" + "0100000001" + "02000000026162" + "0302" + "0601", // ..., quiet exit
                HexFormat.of().formatHex(Base64.getUrlDecoder().decode(quiet.encode())).substring(0, 38));
    }

    @Test
    void anythingElseIsRefused() {
        ChildSettings settings = new ChildSettings(0, "seg", BackendKind.CUDA, null, null,
                run(BackendKind.AUTO, Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.COUNTERS, false, List.of()));
        String encoded = settings.encode();
        byte[] bytes = Base64.getUrlDecoder().decode(encoded);
        assertThrows(IllegalArgumentException.class, () -> ChildSettings.decode("0 seg 1024"));
        assertThrows(IllegalArgumentException.class, () -> ChildSettings.decode(encoded.substring(0, 20)));
        bytes[2] = 1; // another version
        assertEquals("child settings: version 1, expected 2", assertThrows(IllegalArgumentException.class,
                () -> ChildSettings.decode(Base64.getUrlEncoder().encodeToString(bytes))).getMessage());
        byte[] unknown = java.util.Arrays.copyOf(Base64.getUrlDecoder().decode(encoded), bytes.length + 1);
        unknown[bytes.length] = 99;
        assertEquals("child settings: unknown field 99", assertThrows(IllegalArgumentException.class,
                () -> ChildSettings.decode(Base64.getUrlEncoder().encodeToString(unknown))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ChildSettings.fromArguments(new String[] {encoded}));
        assertThrows(IllegalArgumentException.class, () -> ChildSettings.fromArguments(new String[] {"0", encoded}));
        assertEquals("child settings: index 1 but settings of 0", assertThrows(IllegalArgumentException.class,
                () -> ChildSettings.fromArguments(new String[] {"1", "seg", encoded})).getMessage());
        assertEquals("child settings: control block other but settings of seg",
                assertThrows(IllegalArgumentException.class,
                        () -> ChildSettings.fromArguments(new String[] {"0", "other", encoded})).getMessage());
        assertEquals(settings, ChildSettings.fromArguments(new String[] {"0", "seg", encoded}));
        assertThrows(IllegalArgumentException.class,
                () -> new ChildSettings(0, "seg", BackendKind.AUTO, null, null, settings.run()));
    }
}
