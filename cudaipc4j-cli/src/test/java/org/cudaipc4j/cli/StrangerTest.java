package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;

/**
 * A stranger ({@link NameRacer}: given to user nobody when run as root) makes every name of ours it can see in the
 * run's command lines and environments as soon as they appear: a run on the host backend, with each named thing (the
 * control block and the simulated devices' memory, the descriptor socket's folder with {@code --ipc vmm}, the phase
 * logs' folder with {@code --json}), passes all the same, and leaves the stranger's files alone.
 */
class StrangerTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);

    @Test
    void aStrangerWhoTakesEveryVisibleNameCannotStopARun() throws Exception {
        Path shm = Files.createTempDirectory(Path.of("/dev/shm"), "strangertest-");
        Path tmp = Files.createTempDirectory("strangertest-tmp-");
        String marker = "-Dcudaipc4j.shm.dir=" + shm;
        try (JavaProcess.Interactive racer = JavaProcess.start(JavaProcess.command(NameRacer.class, List.of(),
                marker, shm.toString(), tmp.toString()))) {
            assertEquals("READY", racer.readLine(LIMIT));
            // It takes what it sees: a name on a command line of the run's.
            String decoy = "cudaipc4j-" + ProcessHandle.current().pid() + "-decoy";
            Process shown = new ProcessBuilder("bash", "-c", "read line", decoy, marker).start();
            try {
                assertEquals("TOOK " + shm.resolve(decoy), racer.readLine(LIMIT));
            } finally {
                shown.getOutputStream().close();
                shown.waitFor();
            }
            ToolRun run = ToolRun.finish(ToolRun.start(List.of(marker, "-Djava.io.tmpdir=" + tmp), "--backend",
                    "host", "--sim-devices", "2", "--procs-per-device", "2", "--size", "64K", "--steps", "3",
                    "--ipc", "vmm", "--json"), LIMIT, line -> false, p -> {});
            run.assertExit(ExitCodes.OK);
            List<Path> taken = racer.finish(LIMIT).stdout().lines().filter(l -> l.startsWith("TOOK "))
                    .map(l -> Path.of(l.substring(5))).toList();
            for (Path p : taken) {
                assertEquals(1, Files.size(p), "the stranger's file is left as it was: " + p);
                Files.delete(p);
            }
            assertEquals(List.of(), list(shm), "the run's files in its shared-memory folder");
            assertEquals(List.of(), list(tmp), "the run's files in its temporary folder");
        } finally {
            removeTree(shm);
            removeTree(tmp);
        }
    }

    private static List<String> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static void removeTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
