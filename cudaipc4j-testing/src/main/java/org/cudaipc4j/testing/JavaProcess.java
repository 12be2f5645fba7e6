package org.cudaipc4j.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts a fresh JVM with this JVM's java binary and class path (and its {@code cudaipc4j.*} system properties),
 * the way multi-process tests must: real processes, never forks. Works under Maven and under the JUnit console
 * launcher alike (see {@link #classPath()}).
 */
public final class JavaProcess {
    private JavaProcess() {}

    /** What a finished child printed and returned. */
    public record Result(int exitCode, String stdout, String stderr, long pid) {
        /** Exit code and output, for assertion messages. */
        public String describe() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    /**
     * This JVM's class path: {@code java.class.path}, preceded by the entries of the class loader that loaded the
     * tests when that is a URL class loader (the JUnit console launcher's {@code --class-path} puts the tests
     * there and leaves only its own jar in {@code java.class.path}).
     */
    public static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader cl = JavaProcess.class.getClassLoader(); cl != null; cl = cl.getParent()) {
            if (cl instanceof URLClassLoader urls) {
                for (URL url : urls.getURLs()) {
                    if ("file".equals(url.getProtocol())) {
                        try {
                            entries.add(Path.of(url.toURI()).toString());
                        } catch (URISyntaxException e) {
                            throw new IllegalStateException("class path entry " + url, e);
                        }
                    }
                }
            }
        }
        entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        return String.join(File.pathSeparator, entries);
    }

    /** The command line that runs {@code mainClass} with {@code jvmOptions} and {@code args}. */
    public static List<String> command(Class<?> mainClass, List<String> jvmOptions, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("cudaipc4j.")) {
                cmd.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Runs {@code mainClass} to completion; kills it and fails after {@code timeout}. Options given later win, so
     * {@code jvmOptions} can override an inherited {@code -Dcudaipc4j.*}.
     */
    public static Result run(Duration timeout, Class<?> mainClass, List<String> jvmOptions, String... args) {
        return runCommand(timeout, command(mainClass, jvmOptions, args));
    }

    /** Runs {@code command} to completion with output captured in files (no pipe can fill up and block it). */
    public static Result runCommand(Duration timeout, List<String> command) {
        return runCommand(timeout, command, Map.of());
    }

    /** As {@link #runCommand(Duration, List)}, with {@code environment} added to this process's environment. */
    public static Result runCommand(Duration timeout, List<String> command, Map<String, String> environment) {
        try {
            Path out = Files.createTempFile("cudaipc4j-child", ".out");
            Path err = Files.createTempFile("cudaipc4j-child", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile())
                        .redirectError(err.toFile());
                builder.environment().putAll(environment);
                Process p = builder.start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    throw new AssertionError("child did not finish within " + timeout + ": " + command
                            + "\n--- stdout\n" + Files.readString(out) + "--- stderr\n" + Files.readString(err));
                }
                // The JDK closes its end of the stdin pipe only some time after waitFor returns: closed here, a
                // caller's count of open descriptors does not depend on when.
                p.getOutputStream().close();
                return new Result(p.exitValue(), Files.readString(out), Files.readString(err), p.pid());
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + command, e);
        }
    }

    /** Starts {@code command} for a conversation over its stdin and stdout; stderr goes to a file. */
    public static Interactive start(List<String> command) {
        return start(command, Map.of());
    }

    /** As {@link #start(List)}, with {@code environment} added to this process's environment. */
    public static Interactive start(List<String> command, Map<String, String> environment) {
        try {
            Path err = Files.createTempFile("cudaipc4j-child", ".err");
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
            builder.environment().putAll(environment);
            Process p = builder.start();
            return new Interactive(command, p, err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** A running child that the test talks to line by line. Closing it kills it if still running. */
    public static final class Interactive implements AutoCloseable {
        private final List<String> command;
        private final Process process;
        private final Path err;
        private final BufferedReader out;
        private final Writer in;
        private final StringBuilder seen = new StringBuilder();

        private Interactive(List<String> command, Process process, Path err) {
            this.command = command;
            this.process = process;
            this.err = err;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = process.outputWriter(StandardCharsets.UTF_8);
        }

        /** The process's pid. */
        public long pid() {
            return process.pid();
        }

        /** The next stdout line; fails with the child's output when none comes within {@code timeout}. */
        public String readLine(Duration timeout) {
            CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try {
                String l = line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (l == null) {
                    throw new AssertionError("child closed its output early: " + describe());
                }
                seen.append(l).append('\n');
                return l;
            } catch (TimeoutException e) {
                throw new AssertionError("no line from the child within " + timeout + ": " + describe());
            } catch (ExecutionException e) {
                throw new AssertionError("reading the child's output failed: " + describe(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }

        /** Sends one line to the child's stdin. */
        public void writeLine(String line) {
            try {
                in.write(line + "\n");
                in.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write to the child: " + describe(), e);
            }
        }

        /** Closes stdin and waits for the exit; fails when it takes longer than {@code timeout}. */
        public Result finish(Duration timeout) {
            try {
                in.close();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("child did not exit within " + timeout + ": " + describe());
                }
                // The rest of stdout through the reader, which may hold lines it read ahead; then its pipe is closed.
                StringWriter rest = new StringWriter();
                out.transferTo(rest);
                out.close();
                seen.append(rest);
                Result result = new Result(process.exitValue(), seen.toString(), Files.readString(err), process.pid());
                Files.deleteIfExists(err); // a child that is finished but never closed leaves no file behind
                return result;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }

        private static void closeQuietly(java.io.Closeable pipe) {
            try {
                pipe.close();
            } catch (IOException ignored) {
                // the child is gone, and its end of the pipe with it
            }
        }

        private String describe() {
            String stderr;
            try {
                stderr = Files.readString(err);
            } catch (IOException e) {
                stderr = "(unreadable: " + e + ")";
            }
            return command + "\n--- stdout so far\n" + seen + "--- stderr\n" + stderr;
        }

        /** Kills the child if it still runs, waits for it (5 s at most) and closes the pipes to a child that ended. */
        @Override
        public void close() {
            try {
                if (process.isAlive()) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!process.isAlive()) { // else closing could wait on a read that never ends
                closeQuietly(in);
                closeQuietly(out);
            }
            try {
                Files.deleteIfExists(err);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }
}
