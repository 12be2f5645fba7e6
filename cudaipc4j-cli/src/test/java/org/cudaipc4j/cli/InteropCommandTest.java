package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.cuda.driver.CudaSettings;
import org.cudaipc4j.testing.FileNames;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cudaipc4j interop describe} and {@code open} without a GPU: every golden descriptor and torch 2.11's captured
 * handles described as text and JSON, every handle version, standard input and files; each kind of bad input
 * refused in one line with exit 64 (by both commands, before any driver is touched); what the command line cannot
 * open refused with exit 1; and {@code open} waived (exit 2) without a driver.
 */
class InteropCommandTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String ABSENT = "-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1";
    private static final HexFormat HEX = HexFormat.of();
    private static final String LEGACY_TENSOR_EVENT = "interop-golden/java/legacy-tensor-event.json";

    /** One in-process run. */
    record Run(int exitCode, String out, String err) {
        String describe() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static Path root() {
        return ProjectRoot.find().orElseThrow(() -> new AssertionError("not inside the checkout"));
    }

    private static JsonObject json(Run r) {
        assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
        return JsonParser.parseString(r.out()).getAsJsonObject();
    }

    /** The text form's lines as label, value. */
    private static Map<String, String> text(Run r) {
        assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
        assertEquals("", r.err(), r.describe());
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : r.out().strip().split("\n")) {
            assertTrue(line.length() > 16, line);
            fields.put(line.substring(0, 15).strip(), line.substring(16));
        }
        return fields;
    }

    @Test
    void describesADescriptorFileAsTextAndJson() {
        String file = root().resolve(LEGACY_TENSOR_EVENT).toString();
        Map<String, String> t = text(run("interop", "describe", file));
        assertEquals("legacy", t.get("kind"));
        assertEquals("1.0", t.get("format"));
        assertEquals("GPU-01234567-89ab-cdef-0123-456789abcdef", t.get("device"));
        assertEquals("4194304 bytes", t.get("size"));
        assertEquals("0 bytes", t.get("offset"));
        assertEquals("bfloat16", t.get("dtype"));
        assertEquals("[1024,4]", t.get("shape"));
        assertEquals("[1024,1]", t.get("strides"));
        assertEquals("3 elements", t.get("tensor offset"));
        assertEquals("yes (the reader waits on it)", t.get("event"));
        assertEquals("4242", t.get("producer pid"));

        JsonObject j = json(run("interop", "describe", "--json", file));
        assertEquals("descriptor", j.get("source").getAsString());
        assertEquals("legacy", j.get("kind").getAsString());
        assertEquals("1.0", j.get("format").getAsString());
        assertEquals("GPU-01234567-89ab-cdef-0123-456789abcdef", j.get("device_uuid").getAsString());
        assertEquals(4194304, j.get("bytes").getAsLong());
        assertEquals(0, j.get("offset").getAsLong());
        assertEquals("bfloat16", j.get("dtype").getAsString());
        assertEquals("[1024,4]", j.get("shape").toString());
        assertEquals("[1024,1]", j.get("strides").toString());
        assertEquals(3, j.get("tensor_offset").getAsLong());
        assertTrue(j.get("event").getAsBoolean());
        assertEquals(4242, j.get("producer_pid").getAsLong());
    }

    @Test
    void describesEveryGoldenDescriptorOfBothSides() throws IOException {
        Map<String, String> kinds = Map.of("legacy", "legacy", "legacy-tensor-event", "legacy", "vmm-fd", "vmm",
                "vmm-fabric", "vmm", "pool-fd", "pool", "torch-c", "torch-c", "torch-e", "torch-e");
        for (String side : List.of("java", "python")) {
            for (var c : kinds.entrySet()) {
                Path file = root().resolve("interop-golden").resolve(side).resolve(c.getKey() + ".json");
                JsonObject j = json(run("interop", "describe", "--json", file.toString()));
                assertEquals(c.getValue(), j.get("kind").getAsString(), file.toString());
                assertEquals("1.0", j.get("format").getAsString(), file.toString());
                // The JSON text itself as the argument says the same.
                JsonObject inline = json(run("interop", "describe", "--json", Files.readString(file)));
                inline.addProperty("source", "descriptor");
                assertEquals(j, inline, file.toString());
            }
        }
        Map<String, String> e = text(run("interop", "describe", root().resolve("interop-golden/java/torch-e.json")
                .toString()));
        assertEquals("torch expandable 'e'", e.get("kind"));
        assertEquals("2 (torch 2.8 to 2.12)", e.get("handle version"));
        assertEquals("2097152 bytes (the storage's start in the block torch's handle maps)", e.get("offset"));
        assertEquals("459", e.get("producer pid"));
        assertTrue(e.get("device").startsWith("not given"), e.toString());
    }

    @Test
    void describesTorchTwoElevensCapturedHandles() throws IOException {
        for (String c : List.of("c-float32-4mib", "e-float32-4mib")) {
            JsonObject capture = JsonParser.parseString(Files.readString(root().resolve("interop-golden/torch-2.11")
                    .resolve(c + ".json"))).getAsJsonObject();
            String hex = capture.get("handle").getAsString();
            JsonObject j = json(run("interop", "describe", "--json", hex));
            assertEquals("torch handle", j.get("source").getAsString());
            assertEquals("torch-" + c.charAt(0), j.get("kind").getAsString(), c);
            assertEquals("2", j.get("handle_version").getAsString(), c);
            assertTrue(j.get("device_uuid") == null, "a bare handle names no device");
            if (c.startsWith("e")) {
                long chunks = j.get("chunks").getAsLong();
                assertEquals(chunks * j.get("chunk_bytes").getAsLong(), j.get("bytes").getAsLong());
                assertTrue(j.get("producer_pid").getAsLong() > 0);
            } else {
                assertTrue(j.get("bytes") == null, "a 'c' handle carries no size");
            }
            Map<String, String> t = text(run("interop", "describe", hex.toUpperCase()));
            assertEquals(c.startsWith("c") ? "torch legacy 'c'" : "torch expandable 'e'", t.get("kind"));
        }
    }

    @Test
    void describesEveryHandleVersion() {
        byte[] ipc = new byte[64];
        for (int i = 0; i < 64; i++) {
            ipc[i] = (byte) i;
        }
        assertEquals("raw", json(run("interop", "describe", "--json", HEX.formatHex(ipc)))
                .get("handle_version").getAsString());
        for (int v = 1; v <= 3; v++) {
            JsonObject c = json(run("interop", "describe", "--json", "0" + v + "63" + HEX.formatHex(ipc)));
            assertEquals(Integer.toString(v), c.get("handle_version").getAsString());
            assertEquals("torch-c", c.get("kind").getAsString());
            JsonObject e = json(run("interop", "describe", "--json", HEX.formatHex(expandable(v, 77, 2 << 20,
                    new int[] {40, 41}))));
            assertEquals(Integer.toString(v), e.get("handle_version").getAsString());
            assertEquals("torch-e", e.get("kind").getAsString());
            assertEquals(77, e.get("producer_pid").getAsLong());
            assertEquals(2, e.get("chunks").getAsLong());
            assertEquals(4 << 20, e.get("bytes").getAsLong());
            assertEquals("posix_fd", e.get("chunk_kind").getAsString());
        }
    }

    /** An 'e' handle as torch writes it: version, type, header (v3: with its handle type), the chunks' fds. */
    static byte[] expandable(int version, int pid, long chunkBytes, int[] fds) {
        int header = version >= 3 ? 32 : 24;
        ByteBuffer b = ByteBuffer.allocate(2 + header + 4 * fds.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) version).put((byte) 'e').putInt(pid).putInt(0).putLong(chunkBytes).putLong(fds.length);
        if (version >= 3) {
            b.putInt(1).putInt(0);
        }
        for (int fd : fds) {
            b.putInt(fd);
        }
        return b.array();
    }

    @Test
    void aNewerMinorVersionWithUnknownFieldsIsDescribedWithItsVersion() throws IOException {
        String text = Files.readString(root().resolve("interop-golden/java/legacy.json")).strip()
                .replace("\"1.0\"", "\"1.7\"").replace("}}", "},\"future_field\":[1,2]}");
        text = text.substring(0, text.length() - 1) + ",\"future_field\":[1,2]}";
        JsonObject j = json(run("interop", "describe", "--json", text));
        assertEquals("1.7", j.get("format").getAsString());
    }

    @Test
    void readsStandardInput() throws IOException {
        String text = Files.readString(root().resolve(LEGACY_TENSOR_EVENT));
        try (JavaProcess.Interactive p = JavaProcess.start(JavaProcess.command(Main.class, List.of(), "interop",
                "describe", "--json", "-"))) {
            p.writeLine(text);
            JavaProcess.Result r = p.finish(TIMEOUT);
            assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
            JsonObject j = JsonParser.parseString(r.stdout()).getAsJsonObject();
            assertEquals("bfloat16", j.get("dtype").getAsString());
            assertEquals(4194304, j.get("bytes").getAsLong());
        }
        try (JavaProcess.Interactive p = JavaProcess.start(JavaProcess.command(Main.class, List.of(), "interop",
                "open", "-"))) {
            p.writeLine("0263" + "zz".repeat(64));
            JavaProcess.Result r = p.finish(TIMEOUT);
            assertEquals(ExitCodes.USAGE, r.exitCode(), r.describe());
            assertEquals("cudaipc4j: standard input is not a descriptor (JSON) or a torch handle (hex): 'z' at"
                    + " position 4 is not a hex digit\n", r.stderr(), r.describe());
        }
    }

    @Test
    void aHandleInAFileIsReadToo(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("handle.hex");
        Files.writeString(file, "0163" + "ab".repeat(64) + "\n");
        assertEquals("1", json(run("interop", "describe", "--json", file.toString())).get("handle_version")
                .getAsString());
        Path empty = Files.writeString(dir.resolve("empty.json"), "\n");
        Run r = run("interop", "describe", empty.toString());
        assertEquals(ExitCodes.USAGE, r.exitCode(), r.describe());
        assertEquals("cudaipc4j: " + empty + " is empty: expected a descriptor's JSON or a torch handle's hex\n",
                r.err());
    }

    @Test
    void badInputIsRefusedInOneLineWithExit64ByBothCommands(@TempDir Path dir) throws IOException {
        String ipc = "00".repeat(64);
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("xyz", "the argument is not a descriptor (JSON) or a torch handle (hex): 'x' at position 0 is not"
                + " a hex digit (and no file has that name)");
        cases.put("02630", "torch handle hex has an odd number of digits (5): two digits make a byte");
        cases.put("0263" + ipc.substring(2), "torch handle version 2 type 'c' must be 66 bytes (version, type,"
                + " 64-byte cudaIpcMemHandle_t), got 65");
        cases.put("0263" + ipc + "00", "torch handle version 2 type 'c' must be 66 bytes (version, type, 64-byte"
                + " cudaIpcMemHandle_t), got 67");
        cases.put("02", "torch handle too short: 1 byte; a handle is 64 raw bytes or a version byte, a type byte"
                + " and a payload");
        cases.put("0463" + ipc, "torch handle has version 4, newer than this reader knows (1 to 3)");
        cases.put("0278" + ipc, "torch handle version 2 has an unknown type 'x' (0x78); torch writes 'c'"
                + " (cudaMalloc) and 'e' (expandable segment)");
        cases.put("{\"cudaipc4j_descriptor\":\"1.0\",", "descriptor: not valid JSON (at line 1 column 31)");
        cases.put("{\"cudaipc4j_descriptor\":\"2.0\",\"kind\":\"legacy\"}",
                "descriptor format 2.0 is newer than this reader's 1.x");
        String missing = dir.resolve("missing.json").toString();
        cases.put(missing, "no such file: " + missing);
        cases.put("no-such-descriptor.json", "no such file: no-such-descriptor.json");
        // Unicode digits are no hex digits (Arabic-Indic zero, U+0660).
        cases.put("\u0660\u0660", "the argument is not a descriptor (JSON) or a torch handle (hex): character U+0660 at"
                + " position 0 is not a hex digit (and no file has that name)");
        Path array = Files.writeString(dir.resolve("array.json"), "[1, 2]\n");
        cases.put(array.toString(), array + " is a JSON array: a descriptor is a JSON object, a torch handle hex");
        Path latin1 = Files.write(dir.resolve("latin1.json"), new byte[] {'{', '"', 'k', (byte) 0xe9, '"', '}'});
        cases.put(latin1.toString(), latin1 + " is not a descriptor or a torch handle: its bytes are not UTF-8 (at"
                + " byte 3)");
        cases.put(dir.toString(), dir + " is a folder, not a file: not a descriptor or handle file");
        Path fifo = dir.resolve("fifo.json");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        try {
            assertTrue(mkfifo.waitFor(1, java.util.concurrent.TimeUnit.MINUTES) && mkfifo.exitValue() == 0, "mkfifo");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        // No writer ever comes: read, it would block forever.
        cases.put(fifo.toString(), fifo + " is not a regular file (a FIFO, a device or a socket would block or never"
                + " end): not a descriptor or handle file");
        for (var c : cases.entrySet()) {
            for (String command : List.of("describe", "open")) {
                Run r = run("interop", command, c.getKey());
                assertEquals(ExitCodes.USAGE, r.exitCode(), command + " " + c.getKey() + ": " + r.describe());
                assertEquals("cudaipc4j: " + c.getValue() + "\n", r.err(), command + " " + c.getKey());
                assertEquals("", r.out(), r.describe());
            }
        }
        // A short 'e' header and an unknown 'e' handle type (version 3) name what is wrong too.
        byte[] e3 = expandable(3, 77, 2 << 20, new int[] {40});
        e3[2 + 24] = 9;
        for (String hex : List.of("0265" + "00".repeat(10), HEX.formatHex(e3))) {
            Run r = run("interop", "describe", hex);
            assertEquals(ExitCodes.USAGE, r.exitCode(), r.describe());
            assertTrue(r.err().startsWith("cudaipc4j: torch handle version ") && r.err().indexOf('\n')
                    == r.err().length() - 1, r.describe());
        }
    }

    /**
     * The golden refusals ({@code interop-golden/invalid/}) are the command's lines too: exit 64 and
     * {@code cudaipc4j: <the library's line>} wherever the text reaches the library's readers (a descriptor's JSON, a
     * handle's hex); the rest (not UTF-8, not an object, empty) is refused by the command's own one line.
     */
    @Test
    void everyGoldenRefusalIsOneLineWithExit64() throws IOException {
        Path invalid = root().resolve("interop-golden/invalid");
        JsonObject refusals = JsonParser.parseString(Files.readString(invalid.resolve("refusals.json")))
                .getAsJsonObject();
        int same = 0;
        for (String file : refusals.keySet()) {
            byte[] bytes = Files.readAllBytes(invalid.resolve(file));
            String text = new String(bytes, StandardCharsets.UTF_8).strip();
            boolean reachesTheLibrary = isUtf8(bytes)
                    && (file.startsWith("handles/") ? !text.isEmpty() : text.startsWith("{"));
            for (String command : List.of("describe", "open")) {
                Run r = run("interop", command, invalid.resolve(file).toString());
                assertEquals(ExitCodes.USAGE, r.exitCode(), command + " " + file + ": " + r.describe());
                assertEquals("", r.out(), r.describe());
                assertOneVisibleLine(r.err());
                if (reachesTheLibrary) {
                    assertEquals("cudaipc4j: " + refusals.get(file).getAsString() + "\n", r.err(), command + " " + file);
                    same++;
                }
            }
        }
        assertTrue(same > 2 * 130, "most cases reach the library's readers: " + same / 2);
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** One line of printable ASCII and its newline: nothing of the input reaches the terminal as a control. */
    private static void assertOneVisibleLine(String s) {
        assertTrue(s.endsWith("\n") && s.indexOf('\n') == s.length() - 1, "one line: " + s);
        assertTrue(s.chars().limit(s.length() - 1).allMatch(c -> c >= 0x20 && c < 0x7f), "printable ASCII: " + s);
    }

    @Test
    void controlCharactersOfTheInputAreShownEscaped(@TempDir Path dir) throws IOException {
        String legacy = Files.readString(root().resolve("interop-golden/java/vmm-fd.json"));
        // A C1 control (CSI) too where this JVM's file names can hold one (under a POSIX locale they cannot).
        boolean c1 = FileNames.canHold("\u009b");
        Path named = Files.writeString(dir.resolve("a\u001b[2J\u0007" + (c1 ? "\u009b" : "") + ".json"), legacy);
        Run described = run("interop", "describe", named.toString());
        assertEquals(ExitCodes.OK, described.exitCode(), described.describe());
        assertTrue(described.out().contains("a\\u001b[2J\\u0007" + (c1 ? "\\u009b" : "") + ".json"),
                described.describe());
        for (String line : described.out().split("\n")) {
            assertOneVisibleLine(line + "\n");
        }
        Path hostile = Files.writeString(dir.resolve("b\u001b]0;title\u0007.json"), legacy.replace(
                "cudaipc4j-4242-0011223344556677-holders", "\\u001b[31mred\\n\\u0000"));
        Run refused = run("interop", "describe", hostile.toString());
        assertEquals(ExitCodes.USAGE, refused.exitCode(), refused.describe());
        assertEquals("cudaipc4j: descriptor: field 'exporter.holders' must be a holder table's name"
                + " (cudaipc4j-<pid>-<16 hex digits>-holders), got \"\\u001b[31mred\\n\\u0000\"\n", refused.err());
        Run missing = run("interop", "describe", dir.resolve("c\u001b[1m\n.json").toString());
        assertEquals("cudaipc4j: no such file: " + dir + "/c\\u001b[1m\\n.json\n", missing.err());
        Run notUtf8 = run("interop", "describe", Files.write(dir.resolve("d\u0008.json"), new byte[] {'{', (byte) 0xc3})
                .toString());
        assertOneVisibleLine(notUtf8.err());
        assertEquals("cudaipc4j: " + dir + "/d\\b.json is not a descriptor or a torch handle: its bytes are not UTF-8"
                + " (at byte 1)\n", notUtf8.err());
    }

    @Test
    void whatTheCommandLineCannotOpenIsSaidInOneLineWithExit1() throws IOException {
        Run bareE = run("interop", "open", HEX.formatHex(expandable(2, 77, 2 << 20, new int[] {40})));
        assertEquals(ExitCodes.FAILURE, bareE.exitCode(), bareE.describe());
        assertTrue(bareE.err().startsWith("cudaipc4j: cannot open this from the command line: a bare 'e' handle"),
                bareE.describe());
        Run pool = run("interop", "open", root().resolve("interop-golden/java/pool-fd.json").toString());
        assertEquals(ExitCodes.FAILURE, pool.exitCode(), pool.describe());
        assertTrue(pool.err().contains("posix_fd needs its file descriptor"), pool.describe());
        for (Run r : List.of(bareE, pool)) {
            assertEquals(1, r.err().split("\n").length, r.describe());
            assertEquals("", r.out());
        }
        Run none = run("interop");
        assertEquals(ExitCodes.USAGE, none.exitCode(), none.describe());
        assertEquals("cudaipc4j: interop needs a command: describe or open (try --help)\n", none.err());
    }

    @Test
    void openWithoutADriverIsWaivedInOneLine() {
        String file = root().resolve(LEGACY_TENSOR_EVENT).toString();
        for (String arg : List.of(file, "0263" + "00".repeat(64))) {
            JavaProcess.Result r = JavaProcess.run(TIMEOUT, Main.class, List.of(ABSENT), "interop", "open", arg);
            assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
            assertEquals("cudaipc4j: waived: nothing to open on: no NVIDIA driver found: could not load"
                    + " libcudaipc4j-absent.so.1\n", r.stderr(), r.describe());
            assertEquals("", r.stdout(), r.describe());
        }
    }
}
