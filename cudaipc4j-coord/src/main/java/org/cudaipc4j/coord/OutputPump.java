package org.cudaipc4j.coord;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Copies a child's output to one of ours, line by line, with an optional prefix, on a daemon thread: lines of
 * several children never interleave within a line. Ends when the child closes its end.
 */
public final class OutputPump {
    private final Thread thread;

    private OutputPump(Thread thread) {
        this.thread = thread;
    }

    /**
     * Starts copying {@code in} to {@code to}, each line prefixed with {@code prefix}; the thread is named
     * {@code cudaipc4j-<name>}. Bytes are decoded in the platform's native encoding, as the child wrote them.
     *
     * @param in the child's output
     * @param to where the lines go
     * @param prefix put before each line
     * @param name the thread's name after {@code cudaipc4j-}
     * @return the running pump
     */
    public static OutputPump start(InputStream in, PrintStream to, String prefix, String name) {
        return start(in, new Printed(to, prefix), to, name);
    }

    /**
     * Starts handing each line of {@code in}, without its line end, to {@code lines}; the thread is named
     * {@code cudaipc4j-<name>}. Bytes are decoded in the platform's native encoding, as the child wrote them.
     *
     * @param in the child's output
     * @param lines takes each line
     * @param name the thread's name after {@code cudaipc4j-}
     * @return the running pump
     */
    public static OutputPump start(InputStream in, Consumer<String> lines, String name) {
        return start(in, lines, null, name);
    }

    private static OutputPump start(InputStream in, Consumer<String> lines, PrintStream flushed, String name) {
        Thread t = Thread.ofPlatform().daemon().name("cudaipc4j-" + name)
                .start(new Copy(in, nativeCharset(), lines, flushed));
        return new OutputPump(t);
    }

    // Classes rather than lambdas: the start-up cache is trained on a run whose children's output is inherited, and
    // a pump's lambdas would be linked on the way to the children's start of every other run.

    /** Prints each line to a stream, after a prefix, whole: lines of several children never interleave. */
    private record Printed(PrintStream to, String prefix) implements Consumer<String> {
        @Override
        public void accept(String line) {
            synchronized (to) {
                to.println(prefix + line);
            }
        }
    }

    /** A pump's thread: hands each line on, then flushes {@code flushed} (null: nothing to flush). */
    private record Copy(InputStream in, Charset cs, Consumer<String> lines, PrintStream flushed) implements Runnable {
        @Override
        public void run() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, cs))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.accept(line);
                }
            } catch (IOException e) {
                // The child is gone; nothing more to copy.
            } finally {
                if (flushed != null) {
                    flushed.flush();
                }
            }
        }
    }

    /**
     * Waits at most {@code limit} for the child's end of the stream (a grandchild may hold it open).
     *
     * @param limit how long to wait
     * @return true when everything was copied
     */
    public boolean join(Duration limit) {
        try {
            return limit.isPositive() && thread.join(limit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Charset nativeCharset() {
        try {
            return Charset.forName(System.getProperty("native.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }
}
