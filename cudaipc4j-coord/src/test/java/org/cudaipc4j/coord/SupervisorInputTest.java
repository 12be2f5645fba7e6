package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** A member's standard input: a pipe from the supervisor's process when asked for, else closed at once. */
class SupervisorInputTest {
    /** Waits for {@code pid} to end: a member that waited on its input forever fails the test. */
    private static void awaitExit(long pid) throws InterruptedException, ExecutionException, TimeoutException {
        java.util.Optional<ProcessHandle> process = ProcessHandle.of(pid); // absent: ended and reaped already
        if (process.isPresent()) {
            process.get().onExit().get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    @SuppressWarnings("try") // closes early to flush the output pumps
    void eachMemberReadsWhatItsStreamWrites() throws Exception {
        TestSupport.Capture out = new TestSupport.Capture();
        try (Supervisor sv = new Supervisor(2, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            List<OutputStream> inputs = sv.startWithInput(List.of(List.of("cat"), List.of("cat")));
            assertEquals(2, inputs.size());
            for (int i = 0; i < 2; i++) {
                try (OutputStream in = inputs.get(i)) {
                    in.write(("to " + i + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            for (long pid : sv.pids()) {
                awaitExit(pid); // cat ends at the end of its input: the stream's close
            }
            sv.close();
            assertTrue(out.text().contains("[0] to 0\n") && out.text().contains("[1] to 1\n"), out.text());
        }
    }

    @Test
    void aMemberStartedWithoutInputReadsItsEndAtOnce() throws Exception {
        TestSupport.Capture out = new TestSupport.Capture();
        try (Supervisor sv = new Supervisor(1, Supervisor.Options.defaults().withOutput(out.stream, out.stream))) {
            sv.start(List.of(List.of("cat")));
            awaitExit(sv.pids().getFirst());
        }
    }
}
