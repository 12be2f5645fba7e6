package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Test;

/**
 * A child learns its settings and its block's name from its parent's pipe, and nowhere else: no other process can
 * read the name before the block exists. Without them it leaves in one line.
 */
class ChildInputTest {
    private static SimpleIpcOptions hostRun() {
        SimpleIpcOptions d = SimpleIpcOptions.defaults();
        return new SimpleIpcOptions(4096, 1, List.of(), 1, BackendKind.HOST, 2, Duration.ofSeconds(60), false, -1,
                d.kernel(), d.verify(), d.ipc(), d.sync(), d.hostWaitTimeout());
    }

    @Test
    void aRunningChildsCommandLineAndEnvironmentCarryNoBlockName() throws IOException {
        SimpleIpcParent parent = new SimpleIpcParent(hostRun());
        parent.runDeadline = Deadline.after(Duration.ofSeconds(60), "the test's limit");
        try (ChildGroup group = ChildGroup.start(parent, 2, BackendKind.HOST)) {
            ControlBlock block = group.block;
            // Joined: each child has read the name from its pipe and claimed its slot.
            assertTrue(Waits.until(60_000, () -> block.pid(0) != 0 && block.pid(1) != 0), "the children joined");
            byte[] name = block.name().getBytes(StandardCharsets.UTF_8);
            for (long pid : group.supervisor.pids()) {
                Path proc = Path.of("/proc", Long.toString(pid));
                String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
                assertTrue(cmdline.contains(SimpleIpcChild.class.getName()), cmdline);
                assertFalse(contains(Files.readAllBytes(proc.resolve("cmdline")), name), cmdline);
                assertFalse(contains(Files.readAllBytes(proc.resolve("environ")), name), "environment of " + pid);
            }
            group.dismissAndClose();
        }
    }

    @Test
    void aChildWhosePipeClosesBeforeItsSettingsLeavesInOneLine() throws Exception {
        Process child = startChild();
        child.getOutputStream().close();
        assertEquals(List.of("cudaipc4j: simpleIPC child: the parent closed its pipe before sending the child's"
                + " settings"), linesAndExit(child, 1));
    }

    @Test
    void aChildWhosePipeClosesBeforeTheBlocksNameLeavesInOneLine() throws Exception {
        Process child = startChild();
        try (OutputStream in = child.getOutputStream()) {
            in.write(ChildSettings.Frame.CODEC.encode(new ChildSettings(0, BackendKind.HOST, null, null, hostRun())));
        }
        assertEquals(List.of("Process 0: the parent closed its pipe before sending the control block's name"),
                linesAndExit(child, 1));
    }

    @Test
    void aChildGivenSomethingElseLeavesWithTheUsage() throws Exception {
        Process child = startChild();
        try (OutputStream in = child.getOutputStream()) {
            in.write("0 cudaipc4j-1-00ff settings\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(List.of("frame: not a frame (magic 0x30206375)", ChildSettings.USAGE),
                linesAndExit(child, 64));
    }

    private static Process startChild() throws IOException {
        return new ProcessBuilder(JvmCommand.of(SimpleIpcChild.class.getName(), List.of("0")))
                .redirectErrorStream(true).start();
    }

    /** The child's output lines, once it has exited with {@code exit}. */
    private static List<String> linesAndExit(Process child, int exit) throws Exception {
        String output;
        try (InputStream out = child.getInputStream()) {
            output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(exit, child.exitValue(), output);
        return output.lines().toList();
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
