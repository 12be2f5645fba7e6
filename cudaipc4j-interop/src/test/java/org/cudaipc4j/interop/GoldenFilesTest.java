package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cudaipc4j.interop.torch.TorchShare;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

/**
 * The golden descriptors: Java's own ({@code interop-golden/java}) regenerated and compared byte for byte, and every
 * file the Python side wrote ({@code interop-golden/python}) read and written back identically.
 *
 * <p>To rewrite Java's files on purpose (after a deliberate change of the format), run with
 * {@code -Dcudaipc4j.golden.write=true} or the environment variable {@code CUDAIPC4J_REGENERATE_GOLDEN=1} (the
 * Python tests' switch too); the test then
 * writes them and fails, so that a run that wrote files is never taken for a check.
 */
class GoldenFilesTest {
    private static Path golden() {
        Path root = ProjectRoot.find().orElseThrow(() -> new AssertionError("the golden files live in the checkout;"
                + " run the tests from it"));
        return root.resolve("interop-golden");
    }

    private static boolean writing() {
        return Boolean.getBoolean("cudaipc4j.golden.write") || "1".equals(System.getenv("CUDAIPC4J_REGENERATE_GOLDEN"));
    }

    @Test
    void javasGoldenFilesAreWhatJavaWrites() throws IOException {
        Path dir = golden().resolve("java");
        Map<String, Descriptor> cases = GoldenCases.all();
        if (writing()) {
            Files.createDirectories(dir);
            for (var c : cases.entrySet()) {
                Files.writeString(dir.resolve(c.getKey() + ".json"), DescriptorJson.toJson(c.getValue()) + "\n");
            }
            fail("wrote " + cases.size() + " golden files to " + dir + "; run again without the write switch");
        }
        for (var c : cases.entrySet()) {
            Path file = dir.resolve(c.getKey() + ".json");
            assertTrue(Files.isRegularFile(file), file + " is missing: regenerate with -Dcudaipc4j.golden.write=true");
            String expected = Files.readString(file, StandardCharsets.UTF_8);
            assertEquals(expected, DescriptorJson.toJson(c.getValue()) + "\n", "golden file " + file);
            assertEquals(c.getValue(), DescriptorJson.fromJson(expected), "read back " + file);
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(cases.size(), files.filter(p -> p.toString().endsWith(".json")).count(),
                    "every file in " + dir + " is one of the cases");
        }
    }

    /** Each side writes the same bytes for every golden case (docs/interop-format.md): Java's and Python's agree. */
    @Test
    void bothSidesWriteTheSameBytes() throws IOException {
        Path java = golden().resolve("java");
        Path python = golden().resolve("python");
        assertTrue(Files.isDirectory(python), python + " is missing: the Python side's golden files cross-check"
                + " these");
        for (String c : GoldenCases.all().keySet()) {
            Path p = python.resolve(c + ".json");
            assertTrue(Files.isRegularFile(p), "the Python side wrote no " + p);
            assertEquals(Files.readString(java.resolve(c + ".json")), Files.readString(p), c + ": Java and Python");
        }
    }

    /** Reads every golden file of both sides; fewer than Java's own cases means something is wrong. */
    @Test
    void everyGoldenFileOfEitherSideReadsAndWritesBackIdentically() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String side : List.of("java", "python")) {
            Path dir = golden().resolve(side);
            if (Files.isDirectory(dir)) {
                try (Stream<Path> s = Files.list(dir)) {
                    s.filter(p -> p.toString().endsWith(".json")).sorted().forEach(files::add);
                }
            }
        }
        assertTrue(files.size() >= GoldenCases.all().size(), "expected at least Java's " + GoldenCases.all().size()
                + " golden files, found " + files);
        for (Path f : files) {
            String text = Files.readString(f, StandardCharsets.UTF_8);
            Descriptor d;
            try {
                d = DescriptorJson.fromJson(text);
            } catch (DescriptorFormatException e) {
                throw new AssertionError(f + ": " + e.getMessage(), e);
            }
            assertEquals(text, DescriptorJson.toJson(d) + "\n", f + " is not in the canonical form of format 1.0");
            if (d.kind() == Descriptor.Kind.TORCH && d.torch().handle() != null) {
                TorchShare share = TorchShare.of(d);
                assertEquals(d, share.toDescriptor(d.deviceUuid(), d.exporter()), f + " as a torch share");
            }
        }
    }
}
