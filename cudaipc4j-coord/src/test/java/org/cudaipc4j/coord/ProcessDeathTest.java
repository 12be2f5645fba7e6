package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOf;
import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.cudaipc4j.coord.TestSupport.running;
import static org.cudaipc4j.coord.TestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What happens to a group when its parent dies or is told to stop, and to a child started by a stranger. */
class ProcessDeathTest {
    private final TestSupport.StartedProcesses pids = new TestSupport.StartedProcesses();

    @AfterEach
    void nothingLeft() {
        pids.endAll(0); // what a failed test left running
        long[] all = pids.stream().mapToLong(Long::longValue).toArray();
        assertNoSegmentsOf(all);
        assertNoSegmentsOfThisJvm();
    }

    /** A running parent with 3 looping children: its process, segment path and children's pids. */
    private record Group(Process parent, Path segment, List<Long> children, StringBuilder transcript) {}

    private Group startGroup() throws Exception {
        Process parent = TestSupport.startJvm(TestParent.class, "3");
        pids.add(parent.pid());
        StringBuilder transcript = new StringBuilder();
        BufferedReader r = TestSupport.reader(parent);
        String segment = TestSupport.readLineStartingWith(r, "SEGMENT ", transcript);
        List<Long> children = Arrays.stream(TestSupport.readLineStartingWith(r, "CHILDREN ", transcript).split(" "))
                .map(Long::valueOf).toList();
        pids.addAll(children);
        Thread.ofPlatform().daemon().start(() -> {
            try {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (transcript) {
                        transcript.append(line).append('\n');
                    }
                }
            } catch (java.io.IOException ignored) {
                // parent gone
            }
        });
        assertEquals(3, children.size());
        for (long c : children) {
            assertTrue(running(c));
        }
        Path file = SharedSegment.directory().resolve(segment);
        assertTrue(Files.exists(file));
        return new Group(parent, file, children, transcript);
    }

    @Test
    void childrenOfAKilledParentExitAndRemoveItsSegment() throws Exception {
        Group g = startGroup();
        long killedAt = System.nanoTime();
        g.parent().destroyForcibly();
        assertTrue(g.parent().waitFor(5, TimeUnit.SECONDS));
        // The watchdog notices within a few hundred ms; the bound only proves that they end (timing: gpu-chaos.sh).
        long budget = 20_000 - (System.nanoTime() - killedAt) / 1_000_000;
        assertTrue(waitUntil(budget, () -> g.children().stream().noneMatch(TestSupport::running)),
                "children still running 20 s after their parent was killed: " + g.children());
        // The killed parent could not unlink it; its children did on their way out.
        assertFalse(Files.exists(g.segment()), "segment of the killed parent left:\n" + g.transcript());
    }

    @Test
    void sigtermOnTheParentEndsTheGroupAndUnlinksTheSegment() throws Exception {
        Group g = startGroup();
        long termAt = System.nanoTime();
        g.parent().destroy();
        assertTrue(g.parent().waitFor(5, TimeUnit.SECONDS), "parent ignored SIGTERM");
        assertEquals(143, g.parent().exitValue());
        // The watchdog notices within a few hundred ms; the bound only proves that they end (timing: gpu-chaos.sh).
        long budget = 20_000 - (System.nanoTime() - termAt) / 1_000_000;
        assertTrue(waitUntil(budget, () -> g.children().stream().noneMatch(TestSupport::running)),
                "children still running 20 s after SIGTERM: " + g.children());
        assertFalse(Files.exists(g.segment()), "segment left after SIGTERM:\n" + g.transcript());
    }

    @Test
    void sigintOnTheParentEndsTheGroupAndUnlinksTheSegment() throws Exception {
        Group g = startGroup();
        long intAt = System.nanoTime();
        assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(g.parent().pid())).start().waitFor());
        assertTrue(g.parent().waitFor(5, TimeUnit.SECONDS), "parent ignored SIGINT");
        assertEquals(130, g.parent().exitValue());
        // The watchdog notices within a few hundred ms; the bound only proves that they end (timing: gpu-chaos.sh).
        long budget = 20_000 - (System.nanoTime() - intAt) / 1_000_000;
        assertTrue(waitUntil(budget, () -> g.children().stream().noneMatch(TestSupport::running)),
                "children still running 20 s after SIGINT: " + g.children());
        assertFalse(Files.exists(g.segment()), "segment left after SIGINT:\n" + g.transcript());
    }

    @Test
    void childWhoseParentDidNotCreateTheBlockRefusesToJoin() throws Exception {
        try (ControlBlock block = ControlBlock.create(1, TestSupport.SLOT)) {
            // Started through a shell that stays alive, so the child's parent is the shell, not the creator.
            List<String> cmd = new ArrayList<>(JvmCommand.base());
            cmd.add(LoopingChild.class.getName());
            cmd.add(block.name());
            cmd.add("0");
            String line = String.join(" ", cmd.stream().map(s -> "'" + s + "'").toList()) + "; exit $?";
            Process sh = new ProcessBuilder("sh", "-c", line).redirectErrorStream(true).start();
            pids.add(sh.pid());
            String out = new String(sh.getInputStream().readAllBytes());
            assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
            assertEquals(4, sh.exitValue(), out);
            assertTrue(out.startsWith("cannot join: control block " + block.name() + " was created by pid "
                    + ProcessHandle.current().pid() + ", not by our parent (pid "), out);
            assertEquals(0, block.pid(0), "a refused child must not claim a slot");
        }
    }
}
