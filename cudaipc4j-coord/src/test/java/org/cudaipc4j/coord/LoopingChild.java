package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Test child: joins the group and runs barrier rounds until the group ends (abort, dead sibling, dead parent),
 * writing its round into user word 0. Exit codes: 0 after {@code rounds} rounds (0 = forever), 3 when a barrier
 * throws, 4 when it cannot join. Mode "exit:N" exits with N right after joining; "sleep" joins and sleeps;
 * "fail:R" runs {@code rounds} rounds, then fails the group with reason R and exits 1 once its siblings have exited;
 * "release:MS" runs {@code rounds} rounds, marks itself RELEASED and lingers MS milliseconds before it leaves
 * ("release:hold": until its round word is set to -1);
 * "env:NAME" prints that environment variable, then runs its rounds;
 * "exitwhen:N" joins, writes 1 into its round word, waits until the word is -1 (60 s at most) and exits with N.
 * A fifth argument, MS, makes it wait up to MS milliseconds for a block that its parent has yet to create; it prints
 * "waiting for control block NAME" before it starts waiting.
 */
public final class LoopingChild {
    private LoopingChild() {}

    public static void main(String[] args) throws InterruptedException {
        String segment = args[0];
        int index = Integer.parseInt(args[1]);
        long rounds = args.length > 2 ? Long.parseLong(args[2]) : 0;
        String mode = args.length > 3 ? args[3] : "loop";
        ChildRuntime rt;
        if (args.length > 4) {
            System.out.println("waiting for control block " + segment);
            System.out.flush();
        }
        try {
            rt = args.length > 4 ? ChildRuntime.join(() -> segment, TestSupport.SLOT, index, Duration.ofMillis(Long.parseLong(args[4])))
                    : ChildRuntime.join(segment, TestSupport.SLOT, index);
        } catch (RuntimeException e) {
            System.out.println("cannot join: " + e.getMessage());
            System.exit(4);
            return;
        }
        if (mode.startsWith("env:")) {
            System.out.println(mode.substring(4) + "=" + System.getenv(mode.substring(4)));
        }
        if (mode.startsWith("exit:")) {
            System.out.println("exiting with " + mode.substring(5));
            System.exit(Integer.parseInt(mode.substring(5)));
        }
        if (mode.startsWith("exitwhen:")) {
            TestSupport.setRound(rt.block(), index, 1);
            TestSupport.waitUntil(60_000, () -> TestSupport.round(rt.block(), index) == -1);
            System.exit(Integer.parseInt(mode.substring(9)));
        }
        if (mode.equals("sleep")) {
            Thread.sleep(600_000);
        }
        rt.setStatus(ProcessStatus.RUNNING);
        Barrier barrier = rt.block().barrier(index, Duration.ofSeconds(30));
        try {
            for (long r = 1; rounds == 0 || r <= rounds; r++) {
                TestSupport.setRound(rt.block(), index, r);
                barrier.await();
            }
        } catch (BarrierException e) {
            System.out.println("barrier failed: " + e.getMessage());
            System.out.flush();
            System.exit(3);
        }
        if (mode.startsWith("fail:")) {
            List<Long> siblings = new ArrayList<>();
            for (int i = 0; i < rt.block().processCount(); i++) {
                if (i != index) {
                    siblings.add(rt.block().pid(i));
                }
            }
            rt.fail(mode.substring(5));
            rt.close();
            // Leaves only after the siblings (leaving because of the abort) have exited: the failure it declared must
            // be blamed on it although it is not the first to exit.
            TestSupport.waitUntil(60_000, () -> siblings.stream().noneMatch(Pids::isAlive));
            System.out.println("failed on purpose");
            System.out.flush();
            System.exit(1);
        }
        if (mode.equals("release:hold")) {
            // Lingers until the test writes -1 into its round word (60 s at most).
            rt.setStatus(ProcessStatus.RELEASED);
            TestSupport.waitUntil(60_000, () -> TestSupport.round(rt.block(), index) == -1);
        } else if (mode.startsWith("release:")) {
            rt.setStatus(ProcessStatus.RELEASED);
            Thread.sleep(Long.parseLong(mode.substring(8)));
        }
        rt.close();
        System.out.println("done " + rounds);
    }
}
