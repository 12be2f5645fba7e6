package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code bench chart} on input it cannot draw: one line that names the file and what is wrong, and exit 64, as every
 * command answers input it refuses.
 */
class BenchChartTest {
    static Stream<Arguments> notBenchResults() {
        return Stream.of(
                Arguments.of("{\"endToEnd\": [", "is not valid JSON (End of input at line 1 column 15)"),
                Arguments.of("{\"endToEnd\": [1,}", "is not valid JSON ("),
                Arguments.of("", "holds no bench results (endToEnd, stepLatency, fill):"),
                Arguments.of("[1, 2]", "holds no bench results (endToEnd, stepLatency, fill):"),
                Arguments.of("{\"tool\": \"cudaipc4j simpleipc\", \"result\": \"passed\"}",
                        "holds no bench results (endToEnd, stepLatency, fill); it is a run's report: charts are"
                                + " drawn from the bench.json that 'cudaipc4j bench --out DIR' writes"),
                Arguments.of("{\"fill\": 3}", "has bench results of an unknown shape"),
                Arguments.of("{\"stepLatency\": [{\"kernel\": 1}]}", "has bench results of an unknown shape"),
                Arguments.of("{\"endToEnd\": [{\"args\": [], \"medianRunCriticalPathMs\": {\"run\": 1e400}}]}",
                        "has a number that is not finite in its endToEnd part"),
                // a good first part is not drawn when a later one cannot be
                Arguments.of("{\"endToEnd\": [{\"args\": [], \"medianRunCriticalPathMs\": {\"run\": 1}}],"
                        + " \"fill\": {\"gbPerSecond\": {\"copy\": [[1, -1e400]]}}}",
                        "has a number that is not finite in its fill part"));
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("notBenchResults")
    void inputThatIsNoBenchResultIsOneLineAndAUsageError(String json, String expected, @TempDir Path tmp)
            throws IOException {
        Path in = Files.writeString(tmp.resolve("in.json"), json);
        Path out = tmp.resolve("charts");
        Chart chart = chart(in, out);
        assertEquals(ExitCodes.USAGE, chart.exit, chart.err);
        assertEquals(1, chart.err.lines().count(), chart.err);
        assertTrue(chart.err.startsWith("cudaipc4j: bench chart: '" + in + "' "), chart.err);
        assertTrue(chart.err.contains(expected), chart.err);
        assertFalse(chart.err.contains("Exception") || chart.err.contains("path $"), chart.err);
        assertEquals("", chart.out);
        if (Files.exists(out)) { // made only for results that turned out to be of another shape
            try (Stream<Path> drawn = Files.list(out)) {
                assertEquals(List.of(), drawn.toList(), "nothing drawn");
            }
        }
    }

    @Test
    void aFileTooLongWithoutEndOrNotTextIsOneLine(@TempDir Path tmp) throws IOException {
        Path big = tmp.resolve("big.json");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength((64 << 20) + 1); // sparse: no disk is used
        }
        Chart tooLong = chart(big, tmp.resolve("charts"));
        assertEquals(ExitCodes.USAGE, tooLong.exit, tooLong.err);
        assertEquals("cudaipc4j: bench chart: '" + big + "' holds more than 67108864 bytes: no bench.json is that"
                + " long\n", tooLong.err);
        Chart endless = chart(Path.of("/dev/zero"), tmp.resolve("charts"));
        assertEquals(ExitCodes.USAGE, endless.exit, endless.err);
        assertEquals("cudaipc4j: bench chart: '/dev/zero' is not a regular file (a FIFO, a device or a socket would"
                + " block or never end)\n", endless.err);
        Path binary = Files.write(tmp.resolve("binary.json"), new byte[] {'{', (byte) 0xff, (byte) 0xfe, '}'});
        Chart notText = chart(binary, tmp.resolve("charts"));
        assertEquals(ExitCodes.USAGE, notText.exit, notText.err);
        assertEquals("cudaipc4j: bench chart: '" + binary + "' is not UTF-8 text\n", notText.err);
    }

    /** A FIFO no process writes would block its reader forever: refused at once, without opening it. */
    @Test
    void aFifoIsRefusedWithoutWaitingForAWriter(@TempDir Path tmp) throws Exception {
        Path fifo = tmp.resolve("fifo.json");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertTrue(mkfifo.waitFor(1, java.util.concurrent.TimeUnit.MINUTES) && mkfifo.exitValue() == 0, "mkfifo");
        Chart chart = chart(fifo, tmp.resolve("charts"));
        assertEquals(ExitCodes.USAGE, chart.exit, chart.err);
        assertEquals("cudaipc4j: bench chart: '" + fifo + "' is not a regular file (a FIFO, a device or a socket"
                + " would block or never end)\n", chart.err);
        Chart folder = chart(tmp, tmp.resolve("charts"));
        assertEquals(ExitCodes.USAGE, folder.exit, folder.err);
        assertEquals("cudaipc4j: bench chart: '" + tmp + "' is a folder, not a file\n", folder.err);
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path tmp) {
        String name = "missing.json";
        Chart chart = chart(tmp.resolve(name), tmp.resolve("charts"));
        assertEquals(ExitCodes.USAGE, chart.exit, chart.err);
        assertEquals("cudaipc4j: bench chart: '" + tmp.resolve(name) + "' does not exist\n", chart.err);
    }

    /** The folder is named by --out, as bench names its own, or by the second word; once, and never missing. */
    @Test
    void theFolderIsNamedByOutOrByTheSecondWord(@TempDir Path tmp) throws IOException {
        Path in = Files.writeString(tmp.resolve("in.json"), "{\"fill\": 3}"); // read, then refused
        Chart byOut = run("bench", "chart", in.toString(), "--out", tmp.resolve("a").toString());
        assertEquals(ExitCodes.USAGE, byOut.exit, byOut.err);
        assertTrue(byOut.err.contains("has bench results of an unknown shape"), byOut.err);
        Chart twice = run("bench", "chart", in.toString(), tmp.resolve("a").toString(), "--out",
                tmp.resolve("b").toString());
        assertEquals(ExitCodes.USAGE, twice.exit, twice.err);
        assertEquals("cudaipc4j: bench chart: give the folder once, as --out DIR or as OUTDIR\n", twice.err);
        Chart none = run("bench", "chart", in.toString());
        assertEquals(ExitCodes.USAGE, none.exit, none.err);
        assertEquals("cudaipc4j: bench chart: no folder to draw into: give --out DIR\n", none.err);
        Chart help = run("bench", "chart", "--help");
        assertEquals(ExitCodes.OK, help.exit, help.err);
        for (String described : List.of("IN.json", "OUTDIR", "--out=DIR", "bench.json that 'cudaipc4j bench")) {
            assertTrue(help.out.contains(described), help.out);
        }
    }

    private record Chart(int exit, String out, String err) {}

    private static Chart chart(Path in, Path outDir) {
        return run("bench", "chart", in.toString(), outDir.toString());
    }

    private static Chart run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        CommandLine sub = cl.getSubcommands().get("bench").getSubcommands().get("chart");
        for (CommandLine c : new CommandLine[] {cl, cl.getSubcommands().get("bench"), sub}) {
            c.setOut(new PrintWriter(out, true));
            c.setErr(new PrintWriter(err, true));
        }
        int exit = cl.execute(args);
        return new Chart(exit, out.toString(), err.toString());
    }
}
