package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;

/**
 * A rank in a process of its own, Python's (python/tests/rendezvous_peer.py) or Java's ({@link RendezvousPeer}), or
 * another helper of python/tests: its stdout lines, each with the time this JVM read it, and commands on its stdin.
 * Closing it kills the process if it still runs.
 */
final class RankProcess implements AutoCloseable {
    /** A line the rank printed, and when it was read here ({@link System#nanoTime()}). */
    record Line(String text, long at) {}

    private static final Line END = new Line("", 0);

    private final Process process;
    private final Path stderr;
    private final Writer stdin;
    private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
    private final StringBuilder seen = new StringBuilder();
    private final Thread pump;

    private RankProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.stdin = process.outputWriter(StandardCharsets.UTF_8);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        this.pump = new Thread(() -> {
            try (out) {
                for (String l; (l = out.readLine()) != null; ) {
                    lines.add(new Line(l, System.nanoTime()));
                }
            } catch (IOException e) {
                // the process is gone
            }
            lines.add(END);
        }, "test-python-rank-output");
        pump.start();
    }

    /** The repository's python folder, or null when not run inside the checkout. */
    static Path pythonDir() {
        return ProjectRoot.find().map(r -> r.resolve("python")).filter(Files::isDirectory).orElse(null);
    }

    /** Skips the calling test (or class) visibly unless the checkout's python folder is here and python3 runs. */
    static void assumePython() {
        Assumptions.assumeTrue(pythonDir() != null, "skipped: not run inside the project's checkout");
        Assumptions.assumeTrue(available(), "skipped: python3 (3.11 or newer) does not run here");
    }

    /** Whether python3 runs here. */
    static boolean available() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import sys; sys.exit(0 if sys.version_info >= (3, 11)"
                    + " else 1)").redirectErrorStream(true).start();
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts Python rank {@code rank} of {@code size} at 127.0.0.1:{@code port} with the test timings and secret. */
    static RankProcess python(int rank, int size, int port, String... more) {
        return start(pythonCommand("rendezvous_peer.py", peerArguments(rank, size, port, more)));
    }

    /** Starts Java rank {@code rank} of {@code size} ({@link RendezvousPeer}), with the same options as Python's. */
    static RankProcess java(int rank, int size, int port, String... more) {
        return start(JavaProcess.command(RendezvousPeer.class, List.of(), peerArguments(rank, size, port, more)
                .toArray(String[]::new)));
    }

    /** Starts {@code python/tests/SCRIPT} with {@code arguments}, the package on its path. */
    static RankProcess pythonScript(String script, String... arguments) {
        return start(pythonCommand(script, List.of(arguments)));
    }

    private static List<String> peerArguments(int rank, int size, int port, String... more) {
        List<String> args = new ArrayList<>(List.of("--rank", Integer.toString(rank), "--size",
                Integer.toString(size), "--port", Integer.toString(port), "--secret",
                new String(Ranks.SECRET, StandardCharsets.UTF_8), "--nccl", Integer.toString(Ranks.NCCL),
                "--payload-hex", Wire.hex(Ranks.ID), "--interval", "0.2", "--limit", "1"));
        args.addAll(List.of(more));
        return args;
    }

    private static List<String> pythonCommand(String script, List<String> arguments) {
        List<String> cmd = new ArrayList<>(List.of("python3", pythonDir().resolve("tests").resolve(script).toString()));
        cmd.addAll(arguments);
        return cmd;
    }

    private static RankProcess start(List<String> cmd) {
        try {
            Path err = Files.createTempFile("cudaipc4j-rank", ".err");
            ProcessBuilder b = new ProcessBuilder(cmd).redirectError(err.toFile());
            b.environment().put("PYTHONPATH", pythonDir().toString());
            b.environment().remove("CUDAIPC4J_HEARTBEAT_TIMEOUT");
            return new RankProcess(b.start(), err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    /** Closes its stdin, which ends a peer or the flood. */
    void endInput() {
        try {
            stdin.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the stdin of the rank: " + describe(), e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** The next line, which must start with {@code prefix}; fails with what the rank printed otherwise. */
    Line expect(String prefix) {
        Line l;
        try {
            l = lines.poll(Ranks.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (l == null || l == END) {
            fail((l == null ? "no line within " + Ranks.WAIT : "the rank's output ended") + " while waiting for '"
                    + prefix + "': " + describe());
        }
        seen.append(l.text()).append('\n');
        if (!l.text().startsWith(prefix)) {
            fail("expected a line starting with '" + prefix + "', got '" + l.text() + "': " + describe());
        }
        return l;
    }

    /** The rest of the next line after {@code prefix}. */
    String expectRest(String prefix) {
        return expect(prefix).text().substring(prefix.length());
    }

    /** The port a rank 0 started with port 0 listens on, from its {@code bound PORT} line. */
    int boundPort() {
        return Integer.parseInt(expectRest("bound "));
    }

    void send(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the rank: " + describe(), e);
        }
    }

    /** Sends a signal with kill(1): {@code KILL}, {@code STOP}. */
    void signal(String name) {
        try {
            Process k = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
            if (!k.waitFor(30, TimeUnit.SECONDS) || k.exitValue() != 0) {
                fail("kill -" + name + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Kills the process, stopped or not, if it still runs, and waits for it to end. */
    void kill() {
        process.destroyForcibly(); // SIGKILL ends a stopped process too
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                fail("the rank did not end within 30 s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits for the exit; returns its code. */
    int exitCode(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                fail("the rank did not exit within " + timeout + ": " + describe());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private String describe() {
        String err;
        try {
            err = Files.readString(stderr);
        } catch (IOException e) {
            err = "(unreadable: " + e + ")";
        }
        return "\n--- stdout so far\n" + seen + "--- stderr\n" + err;
    }

    @Override
    public void close() {
        process.destroyForcibly(); // SIGKILL ends a stopped process too
        try {
            process.waitFor(30, TimeUnit.SECONDS);
            pump.join(TimeUnit.SECONDS.toMillis(30));
            stdin.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the process is gone
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException e) {
            // a temp file left behind is harmless
        }
    }
}
