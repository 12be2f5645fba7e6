package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Test parent: creates a group of {@code n} {@link LoopingChild}ren that barrier forever, prints
 * {@code SEGMENT <name>} and {@code CHILDREN <pid> ...} once all joined, then waits for them. The tests kill it.
 */
public final class TestParent {
    private TestParent() {}

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        SharedSegment.reapStale();
        try (ControlBlock block = ControlBlock.create(n, TestSupport.SLOT);
             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults())) {
            List<List<String>> childArgs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                childArgs.add(List.of(block.name(), Integer.toString(i)));
            }
            sv.start(LoopingChild.class.getName(), childArgs);
            long deadline = System.nanoTime() + 30_000_000_000L;
            for (int i = 0; i < n; i++) {
                while (TestSupport.round(block, i) < 2) {
                    if (System.nanoTime() > deadline) {
                        System.out.println("children did not start");
                        System.exit(5);
                    }
                    Thread.onSpinWait();
                    Thread.yield();
                }
            }
            System.out.println("SEGMENT " + block.name());
            System.out.println("CHILDREN " + sv.pids().stream().map(String::valueOf).reduce((a, b) -> a + " " + b)
                    .orElse(""));
            System.out.flush();
            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(120));
            System.out.println("OUTCOME " + outcome);
        }
    }
}
