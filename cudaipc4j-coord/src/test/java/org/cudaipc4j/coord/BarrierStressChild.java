package org.cudaipc4j.coord;

import java.time.Duration;

/**
 * Test child for the barrier invariant: before round r each process stores r in user word 0 of its slot; after
 * the barrier every slot must hold r or r + 1 (a sibling may already have started the next round, not more). Any
 * other value means some process left a round early: the child fails the group and exits 2.
 */
public final class BarrierStressChild {
    private BarrierStressChild() {}

    public static void main(String[] args) {
        String segment = args[0];
        int index = Integer.parseInt(args[1]);
        long rounds = Long.parseLong(args[2]);
        int exit = 0;
        try (ChildRuntime rt = ChildRuntime.join(segment, TestSupport.SLOT, index)) {
            ControlBlock block = rt.block();
            int n = block.processCount();
            rt.setStatus(ProcessStatus.RUNNING);
            Barrier barrier = block.barrier(index, Duration.ofSeconds(30));
            long violations = 0;
            String first = null;
            for (long r = 1; r <= rounds; r++) {
                TestSupport.setRound(block, index, r);
                barrier.await();
                for (int p = 0; p < n; p++) {
                    long seen = TestSupport.round(block, p);
                    if (seen < r || seen > r + 1) {
                        violations++;
                        if (first == null) {
                            first = "after round " + r + " process " + p + " shows round " + seen;
                        }
                    }
                }
            }
            if (barrier.round() != rounds) {
                first = "barrier counted " + barrier.round() + " rounds, expected " + rounds;
                violations++;
            }
            if (violations > 0) {
                rt.fail("invariant broken " + violations + " times; first: " + first);
                System.out.println("INVARIANT BROKEN " + violations + " times; first: " + first);
                exit = 2;
            } else {
                System.out.println("ok " + rounds + " rounds");
            }
        } catch (CoordinationException e) {
            System.out.println("failed: " + e.getMessage());
            exit = 3;
        }
        System.out.flush();
        System.exit(exit);
    }
}
