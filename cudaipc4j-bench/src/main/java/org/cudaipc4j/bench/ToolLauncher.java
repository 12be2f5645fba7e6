package org.cudaipc4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.coord.JvmCommand;

/**
 * Starts the tool as a fresh process the way the {@code cudaipc4j} script does: the same java binary, class path
 * and JVM options as this process (so an AOT cache or GC choice applies to what is measured), through
 * {@link JvmCommand#of}.
 */
final class ToolLauncher {
    private ToolLauncher() {}

    /** What a finished run of the tool printed, and its exit code. */
    record Outcome(int exitCode, String stdout, String stderr) {
        String lastErrorLine() {
            String[] lines = stderr.strip().split("\n");
            return lines[lines.length - 1];
        }
    }

    /** Runs {@code mainClass} in a fresh JVM with extra environment variables to completion (at most 10 minutes). */
    static Outcome runMain(String mainClass, List<String> toolArgs, java.util.Map<String, String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(JvmCommand.of(mainClass, toolArgs));
            pb.environment().putAll(env);
            Process p = pb.start();
            p.getOutputStream().close();
            // A thread of its own: the common pool may have a single worker on a small machine.
            CompletableFuture<String> err = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> err.complete(drain(p.getErrorStream())));
            String out = drain(p.getInputStream());
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IllegalStateException("run did not finish in 10 minutes: " + String.join(" ", toolArgs));
            }
            return new Outcome(p.exitValue(), out, err.join());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the tool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
