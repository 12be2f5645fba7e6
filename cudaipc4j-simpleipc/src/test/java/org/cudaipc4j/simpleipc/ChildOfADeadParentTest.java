package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.cudaipc4j.coord.JvmCommand;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A child whose parent dies before sending what it waits for leaves in one line: it never waits forever; and it
 * removes what the dead parent had named, which nobody else would.
 */
class ChildOfADeadParentTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "parent dies after sending {0}")
    @CsvSource(delimiter = '|', value = {
        "nothing  | cudaipc4j: simpleIPC child: the parent closed its pipe before sending the child's settings",
        "settings | Process 0: the parent closed its pipe before sending the control block's name",
    })
    void leavesInOneLine(String sent, String line) throws Exception {
        Path output = dir.resolve("child.out");
        Path shm = Files.createDirectory(dir.resolve("shm"));
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Process parent = new ProcessBuilder(JvmCommand.of(List.of("-Dcudaipc4j.shm.dir=" + shm,
                "-Djava.io.tmpdir=" + tmp), SilentParent.class.getName(), List.of(output.toString(), sent)))
                .redirectErrorStream(true).start();
        long child;
        List<Path> named;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(),
                StandardCharsets.UTF_8))) {
            String names = out.readLine();
            assertTrue(names != null && names.startsWith("NAMED "), String.valueOf(names));
            named = Stream.of(names.substring("NAMED ".length()).split(" ")).map(Path::of).toList();
            assertTrue(named.stream().allMatch(Files::exists), "named before the kill: " + named);
            String started = out.readLine();
            assertTrue(started != null && started.startsWith("CHILD "), String.valueOf(started));
            child = Long.parseLong(started.substring("CHILD ".length()));
            parent.destroyForcibly();
            assertTrue(parent.waitFor(60, TimeUnit.SECONDS), "the parent ended");
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(child);
        if (handle.isPresent()) {
            handle.get().onExit().get(60, TimeUnit.SECONDS); // a child that waited forever fails here
        }
        assertEquals(List.of(line), Files.readAllLines(output));
        assertEquals(List.of(), named.stream().filter(Files::exists).toList(), "left after the child");
    }
}
