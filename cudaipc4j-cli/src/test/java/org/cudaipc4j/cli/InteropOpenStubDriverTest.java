package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.cudaipc4j.coord.ExportHolders;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.StubLibraries;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cudaipc4j interop open} on the stub driver of {@code scripts/stub-driver} (no GPU; its copies read zeros):
 * a legacy descriptor with a tensor, an event and the exporter's holder table (which the tool signs into while it
 * maps) is opened on the device its UUID names and its tensor hashed as the line says.
 */
class InteropOpenStubDriverTest {
    /** The stub's device ({@code cuDeviceGetUuid_v2}: bytes 0 to 15). */
    private static final UUID STUB_GPU = new UUID(0x0001_0203_0405_0607L, 0x0809_0a0b_0c0d_0e0fL);

    @Test
    void aLegacyDescriptorOpensOnItsDeviceAndIsHashedAndReleased(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        byte[] handle = new byte[64];
        byte[] event = new byte[64];
        for (int i = 0; i < 64; i++) {
            handle[i] = (byte) (i + 1);
            event[i] = (byte) (i + 3);
        }
        try (ExportHolders holders = ExportHolders.create(4)) {
            Descriptor d = Descriptor.legacy(STUB_GPU, 4096, new Descriptor.Exporter(ProcessHandle.current().pid(), 0,
                    11), handle).withTensor(TensorLayout.contiguous(DType.BFLOAT16, 32, 64))
                    .withEvent(new Descriptor.Event(event, true)).withHolders(holders.name());
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120), JavaProcess.command(Main.class,
                    List.of(), "interop", "open", DescriptorJson.toJson(d)),
                    Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
            assertEquals(ExitCodes.OK, r.exitCode(), r.stdout() + r.stderr());
            String zeros = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(new byte[4096]));
            assertEquals("0 bfloat16 [32,64] " + zeros + "\n", r.stdout(), r.stderr());
        }
    }
}
