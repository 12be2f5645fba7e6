package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@link LoopingChild} processes a supervisor test starts, as the test class's extension
 * ({@code @RegisterExtension final SupervisedChildren started = new SupervisedChildren();}): after each test every
 * child must have ended within 2 s (the rest are killed and the test fails), and no segment of this JVM is left.
 */
final class SupervisedChildren extends TestSupport.StartedProcesses implements AfterEachCallback {
    private static final long serialVersionUID = 1L;

    @Override
    public void afterEach(ExtensionContext context) {
        List<Long> left = endAll(2000);
        assertEquals(List.of(), left, "children still running 2 s after the test (now killed)");
        assertNoSegmentsOfThisJvm();
    }

    /** Starts {@link LoopingChild} under {@code sv} with {@code args} and records the children's pids. */
    void start(Supervisor sv, List<List<String>> args) {
        sv.start(LoopingChild.class.getName(), args);
        addAll(sv.pids());
    }

    /** {@link LoopingChild}'s arguments for each member of {@code block}: {@code rounds} rounds; each list mutable. */
    static List<List<String>> args(ControlBlock block, String rounds) {
        List<List<String>> all = new ArrayList<>();
        for (int i = 0; i < block.processCount(); i++) {
            all.add(new ArrayList<>(List.of(block.name(), Integer.toString(i), rounds)));
        }
        return all;
    }

    /** {@link LoopingChild}'s arguments for each member of {@code block}: join, then sleep. */
    static List<List<String>> sleepers(ControlBlock block) {
        List<List<String>> all = args(block, "0");
        all.forEach(a -> a.add("sleep"));
        return all;
    }
}
