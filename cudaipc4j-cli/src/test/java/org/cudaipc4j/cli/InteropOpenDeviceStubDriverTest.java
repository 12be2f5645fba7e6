package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.StubLibraries;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which device {@code cudaipc4j interop open} maps a descriptor on, on the stub driver of {@code scripts/stub-driver}
 * built with two devices (no GPU; a copy to the host in device d's context reads d in every byte, so the hash names
 * the device): the descriptor's {@code device_uuid} decides, whatever {@code --device} says, and a UUID no visible
 * device has is refused in one line listing the visible ones.
 */
class InteropOpenDeviceStubDriverTest {
    /** The stub's devices ({@code cuDeviceGetUuid_v2}: device d's bytes d*16 to d*16+15). */
    private static final UUID DEVICE_0 = new UUID(0x0001_0203_0405_0607L, 0x0809_0a0b_0c0d_0e0fL);
    private static final UUID DEVICE_1 = new UUID(0x1011_1213_1415_1617L, 0x1819_1a1b_1c1d_1e1fL);
    private static final int BYTES = 4096;

    @TempDir
    static Path tmp;
    private static Path library;

    @BeforeAll
    static void buildTheStub() throws Exception {
        library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"), "-DSTUB_DEVICES=2");
    }

    private static JavaProcess.Result open(UUID device, String ordinal) {
        byte[] handle = new byte[64];
        Arrays.fill(handle, (byte) 1);
        Descriptor d = Descriptor.legacy(device, BYTES, new Descriptor.Exporter(ProcessHandle.current().pid(), 0, 12),
                handle);
        return JavaProcess.runCommand(Duration.ofSeconds(120), JavaProcess.command(Main.class, List.of(),
                "interop", "open", "--device", ordinal, DescriptorJson.toJson(d)),
                Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
    }

    /** The line of {@code BYTES} bytes that all read {@code value}, as one uint8 tensor. */
    private static String line(int value) throws Exception {
        byte[] bytes = new byte[BYTES];
        Arrays.fill(bytes, (byte) value);
        return "0 uint8 [" + BYTES + "] "
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)) + "\n";
    }

    @Test
    void theDescriptorsUuidDecidesNotTheOrdinal() throws Exception {
        JavaProcess.Result second = open(DEVICE_1, "0");
        assertEquals(ExitCodes.OK, second.exitCode(), second.describe());
        assertEquals(line(1), second.stdout(), "mapped on device 1, its UUID's, not on --device 0");
        JavaProcess.Result first = open(DEVICE_0, "1");
        assertEquals(ExitCodes.OK, first.exitCode(), first.describe());
        assertEquals(line(0), first.stdout(), "mapped on device 0, its UUID's, not on --device 1");
        JavaProcess.Result beyond = open(DEVICE_1, "7");
        assertEquals(ExitCodes.OK, beyond.exitCode(),
                "an ordinal no device has is not looked at: " + beyond.describe());
        assertEquals(line(1), beyond.stdout());
    }

    @Test
    void aUuidNoVisibleDeviceHasIsRefusedListingTheVisibleOnes() {
        UUID absent = UUID.fromString("426b8e85-5e4c-aaa3-1e6f-9cc7a5d025c3");
        JavaProcess.Result r = open(absent, "0");
        assertEquals(ExitCodes.FAILURE, r.exitCode(), r.describe());
        assertEquals("", r.stdout());
        assertEquals("cudaipc4j: no visible CUDA device has UUID GPU-426b8e85-5e4c-aaa3-1e6f-9cc7a5d025c3 (visible: 0:"
                + " GPU-00010203-0405-0607-0809-0a0b0c0d0e0f, 1: GPU-10111213-1415-1617-1819-1a1b1c1d1e1f; is"
                + " CUDA_VISIBLE_DEVICES different here?)\n", r.stderr());
    }
}
