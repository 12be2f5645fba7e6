package org.cudaipc4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.ToolSettings;

/**
 * Starts the tool as a fresh process the way the {@code cudaipc4j} script does: the same java binary, class path
 * and JVM options as this process (so an AOT cache or GC choice applies to what is measured), through
 * {@link JvmCommand#of}.
 */
final class ToolLauncher {
    private ToolLauncher() {}

    /** What a finished run of the tool printed, and its exit code. */
    record Outcome(int exitCode, String stdout, String stderr) {
        /** The run's last line on standard error, else on standard output; a waived run's without its prefix. */
        String lastErrorLine() {
            String text = stderr.isBlank() ? stdout.strip() : stderr.strip();
            String line = text.isEmpty() ? "(it printed nothing)" : text.substring(text.lastIndexOf('\n') + 1);
            return line.startsWith(Failures.WAIVED_PREFIX) ? line.substring(Failures.WAIVED_PREFIX.length()) : line;
        }

        /**
         * Throws unless the run passed: {@link Bench.WaivedException} when it waived (exit 2: nothing to run on),
         * else an {@link IllegalStateException}; each names {@code what} and the run's last line.
         */
        Outcome requirePassed(String what) {
            if (exitCode == ExitCodes.WAIVED) {
                throw new Bench.WaivedException(what + " waived: " + lastErrorLine());
            }
            if (exitCode != 0) {
                throw new IllegalStateException(what + " exited " + exitCode + ": " + lastErrorLine());
            }
            return this;
        }
    }

    /**
     * Runs {@code mainClass} in a fresh JVM with extra environment variables to completion (at most 10 minutes).
     * While it runs, this JVM's end (a signal, an exit) ends it too: it is asked to stop (SIGTERM, on which the tool
     * ends its group and removes what it made) and killed if it has not within {@link #STOP_SECONDS}. Where this JVM
     * is killed and can ask nothing, the run stops itself: it is given this process's pid
     * ({@link ToolSettings#BENCH_PID}) and watches it.
     */
    static Outcome runMain(String mainClass, List<String> toolArgs, java.util.Map<String, String> env) {
        // The hook is there before the run: a run started while this JVM shuts down could be missed otherwise.
        Run run = new Run();
        Thread stop = new Thread(run::stop, "cudaipc4j-bench-stop-run");
        Runtime.getRuntime().addShutdownHook(stop);
        try {
            ProcessBuilder pb = new ProcessBuilder(JvmCommand.of(mainClass, toolArgs));
            pb.environment().putAll(env);
            pb.environment().put(ToolSettings.BENCH_PID.name(), Long.toString(ProcessHandle.current().pid()));
            return await(run, run.start(pb), toolArgs);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stop);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs, or has run: the run is being stopped
            }
        }
    }

    /** How long a run may take to end after SIGTERM, when this JVM ends, before it is killed. */
    static final int STOP_SECONDS = 5;

    /** The run in flight, and whether this JVM's end has stopped it (then no run starts). */
    static final class Run {
        private Process process;
        private boolean stopped;

        synchronized Process start(ProcessBuilder pb) {
            if (stopped) {
                throw new IllegalStateException("the bench is ending: no run starts");
            }
            try {
                process = pb.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the tool", e);
            }
            return process;
        }

        void stop() {
            Process p;
            synchronized (this) {
                stopped = true;
                p = process;
            }
            if (p != null) {
                ToolLauncher.stop(p);
            }
        }

        synchronized boolean stopped() {
            return stopped;
        }
    }

    private static void stop(Process p) {
        if (!p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                kill(p);
            }
        } catch (InterruptedException e) {
            kill(p);
        }
    }

    /** SIGKILL to {@code p} and every process under it. */
    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /**
     * How long the run's output may go on after the run ended: a process it left behind (a child that has not yet
     * seen its parent gone) may hold its pipes open; what came by then is the output.
     */
    static final Duration OUTPUT_AFTER_EXIT = Duration.ofSeconds(5);

    static Outcome await(Run run, Process p, List<String> toolArgs) {
        try {
            p.getOutputStream().close();
            // Threads of their own: the common pool may have a single worker on a small machine.
            Drain out = new Drain(p.getInputStream(), "cudaipc4j-bench-run-out");
            Drain err = new Drain(p.getErrorStream(), "cudaipc4j-bench-run-err");
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                kill(p);
                throw new IllegalStateException("run did not finish in 10 minutes: " + String.join(" ", toolArgs));
            }
            if (run.stopped()) {
                throw new IllegalStateException("stopped: the bench is ending, and its run with it");
            }
            long until = System.nanoTime() + OUTPUT_AFTER_EXIT.toNanos();
            return new Outcome(p.exitValue(), out.text(until), err.text(until));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the run's standard input", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    /**
     * Copies one of the run's streams into memory on a thread of its own. Stopping the run closes its streams: a
     * read that fails then ends the copy, and what was read is the text.
     */
    private static final class Drain {
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private final Thread thread;
        private IOException failed; // guarded by this

        Drain(InputStream in, String name) {
            thread = Thread.ofPlatform().daemon().name(name).start(() -> copy(in));
        }

        private void copy(InputStream in) {
            byte[] buffer = new byte[8192];
            try (in) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    synchronized (this) {
                        bytes.write(buffer, 0, n);
                    }
                }
            } catch (IOException e) {
                synchronized (this) {
                    failed = e;
                }
            }
        }

        /**
         * What was read: to the stream's end when it comes by {@code until} ({@link System#nanoTime}); else what
         * came by then (the copy goes on, daemon, until whoever holds the pipe lets go).
         */
        String text(long until) throws InterruptedException {
            long left = until - System.nanoTime();
            if (left > 0) {
                thread.join(Duration.ofNanos(left));
            }
            synchronized (this) {
                if (failed != null) {
                    throw new UncheckedIOException("cannot read the run's output", failed);
                }
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }
    }
}
