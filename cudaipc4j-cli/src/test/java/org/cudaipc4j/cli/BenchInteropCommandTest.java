package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cudaipc4j.bench.InteropBench;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code bench interop}: its command line and its descriptor files, without a GPU. */
class BenchInteropCommandTest {
    private static final String UUID = "GPU-01234567-89ab-cdef-0123-456789abcdef";

    @TempDir
    Path dir;

    private static String golden(String name) throws IOException {
        Path root = ProjectRoot.find().orElseThrow(() -> new AssertionError("not inside the checkout"));
        return Files.readString(root.resolve("interop-golden/java").resolve(name)).strip();
    }

    /** {@code json} with the field {@code key} set to {@code value} (JSON). */
    private static String with(String json, String key, String value) {
        JsonObject o = JsonParser.parseString(json).getAsJsonObject();
        o.add(key, JsonParser.parseString(value));
        return o.toString();
    }

    private Path file(String name, String... lines) throws IOException {
        return Files.writeString(dir.resolve(name), String.join("\n", lines) + "\n");
    }

    private static BenchInteropCommand parse(String... args) {
        BenchInteropCommand b = new BenchInteropCommand();
        new CommandLine(b).parseArgs(args);
        return b;
    }

    private static String refusal(String... args) {
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> parse(args).plan());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e.getMessage();
    }

    @Test
    void tensorPlanReadsEveryShareAndTheBandwidthShare() throws IOException {
        String c = golden("torch-c.json");
        Path shares = file("t.jsonl", c, "", c, c);
        Path bw = file("bw.jsonl", c);
        InteropBench.Plan p = parse("tensor", shares.toString(), "--bandwidth", bw.toString(), "--iterations", "7")
                .plan();
        assertEquals(InteropBench.Case.TENSOR, p.benchCase());
        assertEquals(3, p.descriptors().size());
        assertEquals(Descriptor.Kind.TORCH, p.bandwidth().kind());
        assertEquals(7, p.iterations());
        assertNull(parse("state-dict", shares.toString()).plan().bandwidth());
    }

    @Test
    void theScaleCaseIsTheServiceReadersNotThisCommandLines() throws IOException {
        String shares = file("sc.jsonl", golden("torch-c.json")).toString();
        assertTrue(refusal("scale", shares).contains("org.cudaipc4j.bench.ServiceReader"));
        assertTrue(refusal("nonsense", shares).contains("the cases are tensor, state-dict, pool"));
    }

    @Test
    void poolPlanNeedsOnePosixFdDescriptorWithFdNumbers() throws IOException {
        String pool = with(golden("pool-fd.json"), "fd_numbers", "[9]");
        assertEquals(9, parse("pool", file("p.jsonl", pool).toString()).plan().descriptors().getFirst()
                .fdNumbers()[0]);
        assertTrue(refusal("pool", file("nofd.jsonl", golden("pool-fd.json")).toString())
                .contains("without fd_numbers"));
        assertTrue(refusal("pool", file("two.jsonl", pool, pool).toString()).contains("one descriptor, got 2"));
        assertTrue(refusal("pool", file("torch.jsonl", golden("torch-c.json")).toString())
                .contains("got torch"));
    }

    @Test
    void badCommandLinesAndFilesAreRefusedInOneLine() throws IOException {
        Path c = file("c.jsonl", golden("torch-c.json"));
        assertTrue(refusal("nonsense", c.toString()).contains("unknown case 'nonsense'"));
        assertTrue(refusal("tensor", dir.resolve("absent.jsonl").toString()).contains("no such file"));
        assertTrue(refusal("tensor", file("empty.jsonl", "").toString()).contains("holds no descriptor"));
        assertTrue(refusal("tensor", file("bad.jsonl", golden("torch-c.json"), "{nope").toString())
                .contains("line 2"));
        assertTrue(refusal("tensor", file("legacy.jsonl", golden("legacy.json")).toString())
                .contains("takes torch descriptors, got legacy"));
        assertTrue(refusal("state-dict", c.toString(), "--bandwidth", c.toString()).contains("tensor case only"));
        assertTrue(refusal("tensor", c.toString(), "--iterations", "0").contains("at least 1"));
        assertTrue(refusal("state-dict", c.toString(), "--iterations", "5").contains("--iterations goes with"
                + " --bandwidth"));
        assertTrue(refusal("tensor", c.toString(), "--driver-only", "--iterations", "5")
                .contains("--iterations goes with --bandwidth"));
        JsonObject noUuid = JsonParser.parseString(golden("torch-c.json")).getAsJsonObject();
        assertEquals(UUID, noUuid.remove("device_uuid").getAsString());
        assertTrue(refusal("tensor", file("nouuid.jsonl", noUuid.toString()).toString()).contains("without device_uuid"));
    }

    @Test
    void driverOnlyTakesLegacyTorchSharesOfTensorOrStateDict() throws IOException {
        Path c = file("c.jsonl", golden("torch-c.json"));
        assertTrue(parse("tensor", c.toString(), "--driver-only").plan().driverOnly());
        assertTrue(parse("state-dict", c.toString(), "--driver-only").plan().driverOnly());
        assertFalse(parse("state-dict", c.toString()).plan().driverOnly());
        String expandable = with(golden("torch-e.json"), "device_uuid", "\"" + UUID + "\"");
        assertNull(InteropBench.unfit(InteropBench.Case.TENSOR, org.cudaipc4j.interop.DescriptorJson.fromJson(
                expandable)), "fit for the reader");
        String e = refusal("tensor", file("e.jsonl", expandable).toString(), "--driver-only");
        assertTrue(e.contains("legacy ('c') torch shares only"), e);
        String pool = with(golden("pool-fd.json"), "fd_numbers", "[9]");
        assertTrue(refusal("pool", file("p.jsonl", pool).toString(), "--driver-only").contains("not for a pool"));
        assertTrue(refusal("tensor", c.toString(), "--driver-only", "--bandwidth", c.toString())
                .contains("--bandwidth does not go with --driver-only"));
    }

    @Test
    void aMissingFileIsRefusedInOneLine() {
        assertTrue(refusal("tensor", dir.resolve("none").toString()).startsWith("bench interop: no such file"));
    }

    @Test
    void aFileWithoutEndOrNotTextIsRefusedInOneLine() throws IOException {
        Path big = dir.resolve("big.jsonl");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength((64 << 20) + 1); // sparse: no disk is used
        }
        assertEquals("bench interop: " + big + " holds more than 67108864 bytes: not a share file",
                refusal("pool", big.toString()));
        assertEquals("bench interop: /dev/zero is not a regular file (a FIFO, a device or a socket would block or"
                + " never end)", refusal("pool", "/dev/zero"));
        Path binary = Files.write(dir.resolve("binary.jsonl"), new byte[] {'{', (byte) 0xff, '}', '\n'});
        assertEquals("bench interop: " + binary + " is not UTF-8 text", refusal("tensor", binary.toString()));
    }
}
