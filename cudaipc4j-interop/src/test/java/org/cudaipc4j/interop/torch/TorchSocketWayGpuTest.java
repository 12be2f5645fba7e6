package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A torch producer that no reader may ptrace ({@code prctl(PR_SET_DUMPABLE, 0)}; the reader without
 * {@code CAP_SYS_PTRACE}, under {@code setpriv} when the test runs as root): the plain reader of its expandable
 * segments is refused in one line naming ptrace and the socket way, and the socket way
 * ({@code cudaipc4j.sharing.send_share}, the chunks' fds over the descriptor socket) opens every tensor with the
 * producer's bytes, legacy and expandable; every slot is given back and the producer frees everything.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class TorchSocketWayGpuTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void expandableSegmentsOpenOverTheSocketWherePidfdGetfdIsRefused() throws Exception {
        List<String> lines = run("expandable");
        assertTrue(lines.getFirst().startsWith("REFUSED cannot open torch's expandable segment shared by pid "),
                lines.getFirst());
        String refusal = lines.getFirst();
        assertFalse(refusal.contains("\n"));
        assertTrue(refusal.contains("failed: not permitted: taking the producer's file descriptors needs ptrace"
                + " access to it"), refusal);
        assertTrue(refusal.contains(ProducerFds.SOCKET_WAY), "the socket way: " + refusal);
    }

    @Test
    void legacySharesOpenOverTheSocketToo() throws Exception {
        List<String> lines = run("legacy");
        assertTrue(lines.getFirst().startsWith("OPENED "), "a 'c' handle needs no ptrace: " + lines.getFirst());
    }

    /**
     * Runs the producer in {@code mode} and the reader without ptrace rights over it; checks every tensor received
     * over the socket against the producer's sha256, the slots and the producer's memory; returns the reader's
     * lines.
     */
    private static List<String> run(String mode) throws Exception {
        List<String> withoutPtrace = withoutPtrace();
        String script = TorchReaderGpuTest.producerScript().replace("torch_producer.py", "torch_socket_producer.py");
        // The producer serves its fds with the package's own socket code: the package's folder on its path.
        Path root = org.cudaipc4j.testing.ProjectRoot.find().orElseThrow(() -> new AssertionError("not inside the"
                + " checkout"));
        List<String> producerCommand = new ArrayList<>(List.of("env", "PYTHONPATH=" + root.resolve("python"),
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:" + (mode.equals("expandable") ? "True" : "False"),
                "python3", script, mode));
        try (JavaProcess.Interactive producer = JavaProcess.start(producerCommand)) {
            DriverFileLeaks.removeWhenEnded(producer.pid());
            String plain = producer.readLine(WAIT);
            List<String> expected = new ArrayList<>();
            String line;
            while (!(line = producer.readLine(WAIT)).startsWith("serving ")) {
                expected.add(JsonParser.parseString(line).getAsJsonObject().get("sha256").getAsString());
            }
            String socket = line.substring("serving ".length());
            List<String> command = new ArrayList<>(withoutPtrace);
            command.addAll(JavaProcess.command(SocketWayReaderChild.class, List.of(), socket,
                    Integer.toString(expected.size())));
            List<String> lines;
            try (JavaProcess.Interactive reader = JavaProcess.start(command)) {
                reader.writeLine(plain);
                lines = new ArrayList<>();
                for (int i = 0; i < expected.size() + 2; i++) {
                    lines.add(reader.readLine(WAIT));
                }
                JavaProcess.Result r = reader.finish(WAIT);
                assertEquals(0, r.exitCode(), r.describe());
            }
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(i + " " + expected.get(i), lines.get(i + 1), "tensor " + i + " over the socket");
            }
            assertEquals("closed", lines.getLast());
            producer.writeLine("done");
            JsonObject slots = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject()
                    .getAsJsonObject("slots");
            assertEquals(expected.size() + 1, slots.size(), slots.toString());
            for (String k : slots.keySet()) {
                assertEquals(0, slots.get(k).getAsLong(), "slot of " + k + " given back once");
            }
            JsonObject memory = JsonParser.parseString(producer.readLine(WAIT)).getAsJsonObject();
            assertEquals(memory.get("allocated_start").getAsLong(), memory.get("allocated_after").getAsLong(),
                    "the producer freed every shared block: " + memory);
            assertEquals(0, producer.finish(WAIT).exitCode());
            return lines;
        }
    }

    /** As root, {@code setpriv} without CAP_SYS_PTRACE; another user has no such right to drop. */
    private static List<String> withoutPtrace() throws Exception {
        if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") != 0) {
            return List.of();
        }
        List<String> setpriv = List.of("setpriv", "--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace");
        JavaProcess.Result probe = JavaProcess.runCommand(WAIT, concat(setpriv, List.of("true")));
        Assumptions.assumeTrue(probe.exitCode() == 0, "setpriv cannot drop CAP_SYS_PTRACE here: " + probe.describe());
        return setpriv;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
