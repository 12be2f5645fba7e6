package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

/**
 * The golden refusals ({@code interop-golden/invalid/}, {@code docs/interop-format.md} "Refusals"): every descriptor
 * and torch handle there is refused with exactly its line of {@code refusals.json}, the line the Python reader gives
 * too ({@code python/tests/test_golden.py}).
 */
class GoldenRefusalsTest {
    /** {@return the folder of the invalid cases} */
    static Path folder() {
        return ProjectRoot.find().orElseThrow(() -> new AssertionError("the golden files live in the checkout"))
                .resolve("interop-golden/invalid");
    }

    /** {@return each case's file, relative to {@link #folder()}, and its refusal line} */
    static Map<String, String> refusals() throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        JsonParser.parseString(Files.readString(folder().resolve("refusals.json"), StandardCharsets.UTF_8))
                .getAsJsonObject().entrySet().forEach(e -> m.put(e.getKey(), e.getValue().getAsString()));
        return m;
    }

    /** {@return the refusal of one case's file: the reader's (descriptors) or the handle parser's (handles)} */
    static String refusal(String file) throws IOException {
        byte[] bytes = Files.readAllBytes(folder().resolve(file));
        if (file.startsWith("descriptors/")) {
            return assertThrows(DescriptorFormatException.class, () -> DescriptorJson.fromJson(bytes), file)
                    .getMessage();
        }
        byte[] handle = HexFormat.of().parseHex(new String(bytes, StandardCharsets.US_ASCII).strip());
        return assertThrows(IllegalArgumentException.class, () -> TorchHandle.parse(handle), file).getMessage();
    }

    @Test
    void everyCaseIsRefusedWithItsLine() throws IOException {
        Map<String, String> refusals = refusals();
        assertTrue(refusals.size() > 100, "the cases are there: " + refusals.size());
        List<String> wrong = new ArrayList<>();
        for (var c : refusals.entrySet()) {
            String got = refusal(c.getKey());
            if (!got.equals(c.getValue())) {
                wrong.add(c.getKey() + "\n  expected: " + c.getValue() + "\n  got:      " + got);
            }
            assertTrue(got.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f), "printable ASCII, one line: " + got);
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyFileIsACaseAndEveryCaseAFile() throws IOException {
        List<String> files = new ArrayList<>();
        for (String dir : List.of("descriptors", "handles")) {
            try (Stream<Path> s = Files.list(folder().resolve(dir))) {
                s.forEach(p -> files.add(dir + "/" + p.getFileName()));
            }
        }
        assertEquals(refusals().keySet().stream().sorted().toList(), files.stream().sorted().toList());
    }
}
