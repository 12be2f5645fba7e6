package org.cudaipc4j.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineAtomicOutputTest {
    /** Records each write call as one string. */
    private static final class Calls extends OutputStream {
        final List<String> writes = new ArrayList<>();

        @Override
        public void write(int b) {
            writes.add(String.valueOf((char) b));
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writes.add(new String(b, off, len, StandardCharsets.UTF_8));
        }
    }

    @Test
    void printlnReachesTheTargetAsOneWholeLine() {
        Calls calls = new Calls();
        PrintStream out = new PrintStream(new LineAtomicOutput(calls), true, StandardCharsets.UTF_8);
        out.println("Process 0: verifying...");
        out.printf("Process %d: %s%n", 1, "complete!");
        assertEquals(List.of("Process 0: verifying...\n", "Process 1: complete!\n"), calls.writes);
    }

    @Test
    void severalLinesPrintedAtOnceTakeOneWriteAndAPartialLineWaitsForItsNewline() {
        Calls calls = new Calls();
        PrintStream out = new PrintStream(new LineAtomicOutput(calls), true, StandardCharsets.UTF_8);
        out.print("Step 0 done\nStep 1 done\nStep 2 ");
        assertEquals(List.of("Step 0 done\nStep 1 done\n"), calls.writes);
        out.print("done\nStep 3 done\n");
        assertEquals(List.of("Step 0 done\nStep 1 done\n", "Step 2 done\nStep 3 done\n"), calls.writes);
        out.print("tail");
        out.flush();
        assertEquals(2, calls.writes.size(), "a line without its newline is held back");
        out.close();
        assertEquals("tail", calls.writes.getLast(), "closing writes what is left");
    }
}
