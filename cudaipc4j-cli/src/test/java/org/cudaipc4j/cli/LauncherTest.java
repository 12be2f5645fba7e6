package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code ./cudaipc4j} launcher: the environment of the JVM it starts, and when it takes its jar or its start-up
 * cache for stale; checked with a copy of the script beside a built jar and a stand-in {@code java} that prints what it
 * was given (the real one where the JVM's own check of its cache is the point).
 */
class LauncherTest {
    @Test
    void oneWorkQueuePerContextUnlessTheUserChoseOtherwise(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = standInJdk(tmp);

        Launch unset = launch(root, jdk, null, null);
        assertEquals(0, unset.exit(), unset.out());
        assertEquals("1", field(unset.out(), "connections"), unset.out());
        assertEquals(true, unset.out().contains("-jar " + root.resolve("cudaipc4j-cli/target/cudaipc4j.jar")
                + " --size 4K"), unset.out());
        Launch chosen = launch(root, jdk, "4", null);
        assertEquals("4", field(chosen.out(), "connections"), chosen.out());
    }

    @Test
    void theToolsJvmOptionsAreThoseTheTestsRunItWith(@TempDir Path tmp) throws Exception {
        Launch launch = launch(project(tmp), standInJdk(tmp), null, null);
        assertEquals(0, launch.exit(), launch.out());
        assertTrue(launch.out().contains(" args=--enable-native-access=ALL-UNNAMED "
                + String.join(" ", ToolRun.LAUNCHER_JVM_OPTIONS) + " -jar "), launch.out());
    }

    /**
     * With the launcher's options the JVM's own lines go to standard error: here those of an AOT cache that cannot be
     * mapped, which a JVM with its default logging writes to standard output. (The tool's stdout is checked by
     * scripts and by these tests; a JVM's line there once failed a check, a warning that its performance-data file
     * was locked by a JVM of the same pid in another PID namespace.)
     */
    @Test
    void theJvmsOwnLinesGoToStandardError(@TempDir Path tmp) throws Exception {
        Path noCache = Files.writeString(tmp.resolve("not-a-cache.aot"), "not an AOT cache");
        Process p = ToolRun.start(List.of("-XX:AOTCache=" + noCache), "--version");
        p.getOutputStream().close();
        var err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out + err.get());
        assertTrue(out.matches("cudaipc4j \\S+\n"), "standard output: " + out);
        assertTrue(err.get().contains("An error has occurred while processing the AOT cache"),
                "standard error: " + err.get());
    }

    @Test
    void aCacheOfTheUsersOwnIsRecordedByTheFirstRunAndUsedByTheNext(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = standInJdk(tmp);
        Path cache = tmp.resolve("reader.aot");
        Map<String, String> own = Map.of("CUDAIPC4J_AOT", "1", "CUDAIPC4J_AOT_CACHE", cache.toString());

        Launch recording = launch(root.resolve("cudaipc4j"), jdk, null, null, own);
        assertEquals(0, recording.exit(), recording.out());
        assertTrue(recording.out().contains("-XX:AOTCacheOutput=" + cache + " "), recording.out());
        assertFalse(recording.out().contains("training"), "the build's cache is not trained: " + recording.out());

        Files.createFile(cache); // what the recording JVM leaves
        Launch using = launch(root.resolve("cudaipc4j"), jdk, null, null, own);
        assertTrue(using.out().contains("-XX:AOTCache=" + cache + " "), using.out());
        assertFalse(using.out().contains("AOTCacheOutput"), using.out());

        Launch none = launch(root.resolve("cudaipc4j"), jdk, null, null, Map.of("CUDAIPC4J_AOT_CACHE",
                cache.toString()));
        assertFalse(none.out().contains("AOTCache"), "CUDAIPC4J_AOT=0 means no cache at all: " + none.out());
    }

    /**
     * A start-up cache that no longer matches its jar (a rebuild, a copy, a touch: for the tool's jar the JVM checks
     * the jar's size and modification time, and without {@code -XX:AOTMode=on} ignores a cache that differs in
     * silence) is trained again, and the real JDK, with the cache required, then starts from it. The jar is made older
     * than the cache, so that only a check of the jar itself, not of which file is newer, sees the change.
     */
    @Test
    void aCacheThatNoLongerMatchesItsJarIsTrainedAgain(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jar = root.resolve("cudaipc4j-cli/target/cudaipc4j.jar");
        Path aot = root.resolve("cudaipc4j-cli/target/cudaipc4j.aot");
        writeJarOf(Hello.class, jar);
        Path jdk = Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().getParent();
        Map<String, String> cached = Map.of("CUDAIPC4J_AOT", "1");

        Launch first = launch(root.resolve("cudaipc4j"), jdk, null, null, cached);
        assertEquals(0, first.exit(), first.out());
        assertTrue(first.out().contains("training the start-up cache"), first.out());
        assertTrue(Files.isRegularFile(aot), "the cache was written");
        Launch matching = startFromCache(jdk, aot, jar);
        assertEquals(0, matching.exit(), "the cache matches the jar it was trained with: " + matching.out());

        Launch again = launch(root.resolve("cudaipc4j"), jdk, null, null, cached);
        assertFalse(again.out().contains("training"), "a matching cache is used as it is: " + again.out());

        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(aot).toMillis() - 3_600_000));
        Launch touched = launch(root.resolve("cudaipc4j"), jdk, null, null, cached);
        assertEquals(0, touched.exit(), touched.out());
        assertTrue(touched.out().contains("training the start-up cache"), touched.out());
        Launch required = startFromCache(jdk, aot, jar);
        assertEquals(0, required.exit(), required.out());
    }

    /** The stand-in tool of {@link #aCacheThatNoLongerMatchesItsJarIsTrainedAgain}: it starts and ends. */
    public static final class Hello {
        private Hello() {}

        public static void main(String[] args) {}
    }

    /** A jar whose main class is {@code main}, a class without dependencies. */
    private static void writeJarOf(Class<?> main, Path jar) throws IOException {
        java.util.jar.Manifest manifest = new java.util.jar.Manifest();
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.MAIN_CLASS, main.getName());
        String entry = main.getName().replace('.', '/') + ".class";
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar), manifest);
                var in = main.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new java.util.jar.JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
    }

    /** Runs {@code jar} on {@code jdk} with {@code aot} required: a cache the JVM cannot use fails the start. */
    private static Launch startFromCache(Path jdk, Path aot, Path jar) throws IOException, InterruptedException {
        // The options a cache records that must match: the launcher's.
        Process p = new ProcessBuilder(jdk.resolve("bin/java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC", "-XX:AOTCache=" + aot, "-XX:AOTMode=on", "-jar", jar.toString())
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return new Launch(p.waitFor(), out);
    }

    /** Every module the jar is built from. */
    @ParameterizedTest
    @ValueSource(strings = {"cudaipc4j-base", "cudaipc4j-cuda", "cudaipc4j-coord", "cudaipc4j-launch",
        "cudaipc4j-interop", "cudaipc4j-nccl", "cudaipc4j-tool",
        "cudaipc4j-simpleipc", "cudaipc4j-bench", "cudaipc4j-cli"})
    void aSourceNewerThanTheJarMakesItStale(String module, @TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = standInJdk(tmp);
        Path jar = root.resolve("cudaipc4j-cli/target/cudaipc4j.jar");
        Path source = Files.createDirectories(root.resolve(module + "/src/main/java/org/example"))
                .resolve("Changed.java");
        Files.writeString(source, "class Changed {}\n");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        // Only the file deep in the tree is newer than the jar: every folder above it is older.
        for (Path dir = source.getParent(); !dir.equals(root.resolve(module)); dir = dir.getParent()) {
            Files.setLastModifiedTime(dir, FileTime.fromMillis(System.currentTimeMillis() - 120_000));
        }
        // No Maven on the path: a stale jar ends the launcher with its message instead of a build.
        Path emptyPath = Files.createDirectories(tmp.resolve("empty-path"));

        Launch stale = launch(root, jdk, null, emptyPath);
        assertEquals(1, stale.exit(), stale.out());
        assertEquals(true, stale.out().contains("is missing or stale and Maven (mvn) is not installed"), stale.out());

        // Every folder and file of the sources older than the jar: it runs.
        try (var paths = Files.walk(root.resolve(module + "/src/main"))) {
            for (Path p : paths.toList()) {
                Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis() - 120_000));
            }
        }
        Launch fresh = launch(root, jdk, null, emptyPath);
        assertEquals(0, fresh.exit(), fresh.out());
        assertEquals(true, fresh.out().contains("args="), fresh.out());
    }

    @Test
    void startedThroughASymbolicLinkItRunsTheProjectTheLinkLeadsTo(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = standInJdk(tmp);
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        // A relative link to a relative link, as a user's ~/bin might hold.
        Path first = Files.createSymbolicLink(bin.resolve("cudaipc4j-real"), bin.relativize(root.resolve("cudaipc4j")));
        Path link = Files.createSymbolicLink(bin.resolve("cudaipc4j"), first.getFileName());

        Launch linked = launch(link, jdk, null, null, Map.of());
        assertEquals(0, linked.exit(), linked.out());
        assertEquals(true, linked.out().contains("-jar " + root.resolve("cudaipc4j-cli/target/cudaipc4j.jar")
                + " --size 4K"), linked.out());
    }

    @Test
    void afterABuildTheRunIsTimedFromItsOwnStart(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = standInJdk(tmp);
        Path jar = root.resolve("cudaipc4j-cli/target/cudaipc4j.jar");
        Files.delete(jar);
        // A stand-in build: writes colour codes to both streams as Maven 3.8 does, makes the jar and writes when it
        // was done (microseconds since the epoch).
        Path builtAt = tmp.resolve("built-at");
        Path build = root.resolve("scripts/mvn.sh");
        Files.writeString(build, "#!/bin/bash\nprintf '\\033[0m'\nprintf '\\033[0m' >&2\ntouch '" + jar + "'\necho \"${EPOCHREALTIME//[!0-9]/}\" > '" + builtAt
                + "'\n");
        Files.setPosixFilePermissions(build, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.copy(build, bin.resolve("mvn")); // on the PATH: the launcher builds only when Maven is there
        Files.setPosixFilePermissions(bin.resolve("mvn"), PosixFilePermissions.fromString("rwxr-xr-x"));

        Launch built = launch(root.resolve("cudaipc4j"), jdk, null, null,
                Map.of("PATH", bin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin")));
        assertEquals(0, built.exit(), built.out());
        assertEquals(true, built.out().contains("building"), built.out());
        assertEquals(-1, built.out().indexOf('\u001b'), "no terminal codes in output to a pipe: " + built.out());
        long buildDone = Long.parseLong(Files.readString(builtAt).strip());
        long runStart = Long.parseLong(field(built.out(), "start"));
        assertEquals(true, runStart >= buildDone, "the run's start " + runStart + " is before the build's end "
                + buildDone);

        Launch again = launch(root.resolve("cudaipc4j"), jdk, null, null, Map.of());
        assertEquals("unset", field(again.out(), "start"), "nothing was built: the process's start is the run's");
    }

    /**
     * A standard stream the caller closed reaches the JVM as /dev/null opened for reading, so no file the JVM opens
     * takes its number; one left open is passed on as it is.
     */
    @Test
    void closedStandardStreamsReachTheJvmAsDevNullForReading(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = Files.createDirectories(tmp.resolve("jdk"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        Path java = Files.createDirectories(jdk.resolve("bin")).resolve("java");
        // Writes, for each of its descriptors 0 to 2, where it leads and its access mode (fdinfo's flags, octal).
        Files.writeString(java, "#!/bin/bash\nexec 3> \"$FDS_REPORT\"\nfor fd in 0 1 2; do\n"
                + "  if [ -e /proc/$$/fd/$fd ]; then\n"
                + "    echo \"$fd $(readlink /proc/$$/fd/$fd) $(awk '/^flags/ {print $2 % 4}' /proc/$$/fdinfo/$fd)\" >&3\n"
                + "  else echo \"$fd closed\" >&3; fi\n"
                + "done\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path report = tmp.resolve("fds");
        Path log = tmp.resolve("stderr");

        runWithFdReport(new ProcessBuilder("/bin/bash", "-c", "exec \"$0\" --size 4K <&- >&- 2>&-",
                root.resolve("cudaipc4j").toString()), jdk, report);
        assertEquals("0 /dev/null 0\n1 /dev/null 0\n2 /dev/null 0\n", Files.readString(report));

        runWithFdReport(new ProcessBuilder("/bin/bash", root.resolve("cudaipc4j").toString(), "--size", "4K")
                .redirectOutput(log.toFile()).redirectError(log.toFile()), jdk, report);
        // the pipe to this test as standard input; the log for writing (1), as given
        assertEquals(true, Files.readString(report).matches("0 pipe:\\[\\d+] 0\n1 " + log + " 1\n2 " + log + " 1\n"),
                Files.readString(report));
    }

    /** Runs {@code pb} (the launcher) with the stand-in {@code jdk}, which writes its descriptors to {@code report}. */
    private static void runWithFdReport(ProcessBuilder pb, Path jdk, Path report)
            throws IOException, InterruptedException {
        pb.environment().put("JAVA_HOME", jdk.toString());
        pb.environment().put("CUDAIPC4J_AOT", "0");
        pb.environment().put("FDS_REPORT", report.toString());
        Process p = pb.start();
        assertEquals(true, p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
    }

    /** A copy of the launcher and its script in {@code tmp}, beside an empty built jar. */
    private static Path project(Path tmp) throws IOException {
        Optional<Path> project = ProjectRoot.find();
        Assumptions.assumeTrue(project.isPresent(), "skipped: not run inside the project's checkout");
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.copy(project.get().resolve("cudaipc4j"), root.resolve("cudaipc4j"));
        Files.copy(project.get().resolve("scripts/java-home.sh"),
                Files.createDirectories(root.resolve("scripts")).resolve("java-home.sh"));
        Files.createFile(Files.createDirectories(root.resolve("cudaipc4j-cli/target")).resolve("cudaipc4j.jar"));
        return root;
    }

    /** A stale jar and a JAVA_HOME that is a runtime without javac: one line, and no build started. */
    @Test
    void aStaleJarWithARuntimeWithoutJavacSaysSoInOneLine(@TempDir Path tmp) throws Exception {
        Path root = project(tmp);
        Path jdk = standInJdk(tmp);
        Files.delete(jdk.resolve("bin/javac")); // a runtime, such as a jlinked one
        Files.setLastModifiedTime(root.resolve("cudaipc4j-cli/target/cudaipc4j.jar"),
                FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Files.writeString(Files.createDirectories(root.resolve("cudaipc4j-cli/src/main/java")).resolve("New.java"),
                "class New {}\n");
        Path bin = Files.createDirectories(tmp.resolve("bin-with-mvn"));
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\necho mvn was started\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));

        Launch stale = launch(root, jdk, null, bin);
        assertEquals(1, stale.exit(), stale.out());
        assertEquals("cudaipc4j: " + root.resolve("cudaipc4j-cli/target/cudaipc4j.jar") + " is missing or stale and "
                + jdk + " is a Java runtime without javac to build it: set JAVA_HOME to a JDK 25",
                stale.out().strip());
    }

    /** A JDK 25 home whose {@code java} prints its environment's work-queue setting and its arguments. */
    private static Path standInJdk(Path tmp) throws IOException {
        Path jdk = Files.createDirectories(tmp.resolve("jdk"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        Path java = Files.createDirectories(jdk.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"connections=${CUDA_DEVICE_MAX_CONNECTIONS-unset}"
                + " start=${CUDAIPC4J_RUN_START-unset} args=$*\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path javac = jdk.resolve("bin/javac"); // a JDK: the launcher builds a stale jar only with one
        Files.writeString(javac, "#!/bin/sh\nexit 1\n");
        Files.setPosixFilePermissions(javac, PosixFilePermissions.fromString("rwxr-xr-x"));
        return jdk;
    }

    private record Launch(int exit, String out) {}

    /** Runs the launcher with {@code --size 4K}; {@code path}, when given, is its whole {@code PATH}. */
    private static Launch launch(Path root, Path jdk, String connections, Path path)
            throws IOException, InterruptedException {
        return launch(root.resolve("cudaipc4j"), jdk, connections, path, Map.of());
    }

    /**
     * Runs {@code script} (the launcher, or a link to it) with {@code --size 4K}, no AOT cache
     * ({@code CUDAIPC4J_AOT=0}) and {@code extra} variables, which win.
     */
    private static Launch launch(Path script, Path jdk, String connections, Path path, Map<String, String> extra)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", script.toString(), "--size", "4K")
                .redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.remove("CUDAIPC4J_RUN_START");
        env.remove("CUDAIPC4J_AOT_CACHE");
        env.put("JAVA_HOME", jdk.toString());
        env.put("CUDAIPC4J_AOT", "0");
        env.putAll(extra);
        env.remove("CUDA_DEVICE_MAX_CONNECTIONS");
        if (connections != null) {
            env.put("CUDA_DEVICE_MAX_CONNECTIONS", connections);
        }
        if (path != null) {
            env.put("PATH", path.toString());
        }
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return new Launch(p.waitFor(), out);
    }

    private static String field(String line, String name) {
        for (String word : line.split("\\s+")) {
            if (word.startsWith(name + "=")) {
                return word.substring(name.length() + 1);
            }
        }
        return null;
    }
}
