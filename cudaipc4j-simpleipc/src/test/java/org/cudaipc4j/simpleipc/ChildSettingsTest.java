package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.simpleipc.ChildSettings.BlockName;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Sync;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Verify;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill;
import org.cudaipc4j.testing.FileNames;
import org.junit.jupiter.api.Test;

/** The children's settings arrive as the parent wrote them, every field, and nothing else is taken for them. */
class ChildSettingsTest {
    /** Where the settings' backend lies in their frame: after the header (20 bytes) and the id (4). */
    private static final int BACKEND_OFFSET = 24;

    private static SimpleIpcOptions run(BackendKind backend, Fill kernel, Verify verify, IpcMode ipc, Sync sync,
            boolean json, List<Integer> devices) {
        return new SimpleIpcOptions(3L << 30, 4, devices, 100, backend, 7, Duration.ofMillis(123_456), json, 2,
                kernel, verify, ipc, sync, Duration.ofSeconds(5, 1));
    }

    private static ChildSettings pinned() {
        return new ChildSettings(1, BackendKind.HOST, null, Path.of("/p"), new SimpleIpcOptions(4096, 1, List.of(3),
                2, BackendKind.AUTO, 2, Duration.ofSeconds(120), false, -1, Fill.VEC16, Verify.DEVICE, IpcMode.VMM,
                Sync.EVENTS, Duration.ofSeconds(60)));
    }

    @Test
    void everyFieldRoundTrips() {
        // A phase file's name beyond ASCII where this JVM's file names can hold one (under a POSIX locale they cannot).
        String phaseFile = FileNames.canHold("\u00e4") ? "/tmp/ph\u00e4se-1" : "/tmp/phase-1";
        List<ChildSettings> all = List.of(
                new ChildSettings(0, BackendKind.CUDA, null, null,
                        run(BackendKind.AUTO, Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.COUNTERS, false,
                                List.of())),
                new ChildSettings(31, BackendKind.HOST, Path.of("/tmp/a b/sock"), Path.of(phaseFile),
                        run(BackendKind.HOST, Fill.SIMPLE, Verify.HOST, IpcMode.VMM, Sync.EVENTS, true,
                                List.of(2, 0, 5))),
                new ChildSettings(1, BackendKind.CUDA, Path.of("/x"), null,
                        run(BackendKind.CUDA, Fill.SIMPLE, Verify.HOST, IpcMode.POOL, Sync.COUNTERS, false,
                                List.of(1))),
                new ChildSettings(0, BackendKind.HOST, null, Path.of("/p"),
                        run(BackendKind.HOST, Fill.VEC16, Verify.DEVICE, IpcMode.LEGACY, Sync.EVENTS, true,
                                List.of()), true));
        for (ChildSettings settings : all) {
            assertEquals(settings, ChildSettings.Frame.CODEC.decode(ChildSettings.Frame.CODEC.encode(settings)));
            assertEquals(List.of(Integer.toString(settings.id())), settings.arguments());
            settings.checkArguments(settings.arguments().toArray(String[]::new));
        }
        BlockName name = new BlockName("cudaipc4j-1-00ff");
        assertEquals(name, BlockName.CODEC.decode(BlockName.CODEC.encode(name)));
    }

    @Test
    void theEncodingsBytesArePinned() {
        assertEquals(GOLDEN_SETTINGS, HexFormat.of().formatHex(ChildSettings.Frame.CODEC.encode(pinned())));
        assertEquals(GOLDEN_NAME, HexFormat.of().formatHex(BlockName.CODEC.encode(new BlockName("ab"))));
    }

    /** {@link #pinned()}: the header, then each component in order (texts as length and UTF-8, null as -1). */
    private static final String GOLDEN_SETTINGS = "43345243" + "00000001" + "46895bcbe05151a8" + "0000004e"
            + "00000001" + "01" + "ffffffff" + "00000002" + "2f70" // id 1, host, no socket, phase file "/p"
            + "0000000000001000" + "00000001" + "00000001" + "00000003" // 4096 bytes, 1 per device, devices [3]
            + "00000002" + "02" + "00000002" // 2 rounds, run backend auto, 2 simulated devices
            + "0000000000000078" + "00000000" + "00" + "ffffffff" // timeout 120 s, no json, no corruption
            + "01" + "00" + "01" + "01" // kernel vec16, verify device, ipc vmm, sync events
            + "000000000000003c" + "00000000" + "00"; // host wait timeout 60 s, exit not quiet
    private static final String GOLDEN_NAME = "43345243" + "00000001" + "d473d8c7d17fd081" + "00000006"
            + "00000002" + "6162"; // "ab"

    @Test
    void anythingElseIsRefused() {
        byte[] frame = ChildSettings.Frame.CODEC.encode(pinned());
        byte[] unknown = frame.clone();
        unknown[BACKEND_OFFSET] = 3;
        assertEquals("ChildSettings.backend: unknown code 3 of BackendKind", refused(unknown));
        byte[] auto = frame.clone();
        auto[BACKEND_OFFSET] = (byte) BackendKind.AUTO.ordinal();
        assertEquals("ChildSettings: a child runs on cuda or host, not auto", refused(auto));
        assertEquals("ChildSettings: written for another shape of the record (another build)",
                refused(BlockName.CODEC.encode(new BlockName("seg"))));
        assertEquals("ChildSettings: frame of 40 bytes, its header says " + frame.length,
                refused(Arrays.copyOf(frame, 40)));
        byte[] magic = frame.clone();
        magic[0] = 'X';
        assertEquals("ChildSettings: not a frame (magic 0x58345243)", refused(magic));
        byte[] version = frame.clone();
        version[7] = 2;
        assertEquals("ChildSettings: version 2, expected 1", refused(version));
        byte[] oversized = frame.clone();
        oversized[16] = 0x7f;
        assertEquals("ChildSettings: body length " + (0x7f000000 + frame.length - 20) + " out of range 0..1048576",
                refused(oversized));

        ChildSettings settings = pinned();
        assertEquals(ChildSettings.USAGE, assertThrows(IllegalArgumentException.class,
                () -> settings.checkArguments(new String[0])).getMessage());
        assertEquals(ChildSettings.USAGE, assertThrows(IllegalArgumentException.class,
                () -> settings.checkArguments(new String[] {"1", "cudaipc4j-1-00ff"})).getMessage());
        assertEquals("child settings: index 0 but settings of 1", assertThrows(IllegalArgumentException.class,
                () -> settings.checkArguments(new String[] {"0"})).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new ChildSettings(0, BackendKind.AUTO, null, null, settings.run()));
    }

    private static String refused(byte[] frame) {
        return assertThrows(IllegalArgumentException.class, () -> ChildSettings.Frame.CODEC.decode(frame)).getMessage();
    }
}
