package org.cudaipc4j.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./cudaipc4j} launcher's environment for the JVM it starts, checked with a copy of the script beside a
 * built jar and a stand-in {@code java} that prints what it was given.
 */
class LauncherTest {
    @Test
    void oneWorkQueuePerContextUnlessTheUserChoseOtherwise(@TempDir Path tmp) throws Exception {
        Optional<Path> project = ProjectRoot.find();
        Assumptions.assumeTrue(project.isPresent(), "skipped: not run inside the project's checkout");
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.copy(project.get().resolve("cudaipc4j"), root.resolve("cudaipc4j"));
        Files.copy(project.get().resolve("scripts/java-home.sh"),
                Files.createDirectories(root.resolve("scripts")).resolve("java-home.sh"));
        Files.createFile(Files.createDirectories(root.resolve("cudaipc4j-tool/target")).resolve("cudaipc4j.jar"));
        Path jdk = Files.createDirectories(tmp.resolve("jdk"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        Path java = Files.createDirectories(jdk.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"connections=${CUDA_DEVICE_MAX_CONNECTIONS-unset} args=$*\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

        String unset = launch(root, jdk, null);
        assertEquals("1", field(unset, "connections"), unset);
        assertEquals(true, unset.contains("-jar " + root.resolve("cudaipc4j-tool/target/cudaipc4j.jar") + " --size 4K"), unset);
        String chosen = launch(root, jdk, "4");
        assertEquals("4", field(chosen, "connections"), chosen);
    }

    private static String launch(Path root, Path jdk, String connections) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("cudaipc4j").toString(), "--size", "4K")
                .redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("JAVA_HOME", jdk.toString());
        env.put("CUDAIPC4J_AOT", "0");
        env.remove("CUDA_DEVICE_MAX_CONNECTIONS");
        if (connections != null) {
            env.put("CUDA_DEVICE_MAX_CONNECTIONS", connections);
        }
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), out);
        return out;
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
