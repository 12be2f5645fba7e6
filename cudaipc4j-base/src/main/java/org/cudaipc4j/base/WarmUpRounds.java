package org.cudaipc4j.base;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The rounds of a warm-up: a step run ahead of the work that needs it fast, again and again, because a fresh JVM runs
 * a path interpreted until the JIT has compiled it, and a downcall's path costs several microseconds a call until
 * the optimizing tier has (thousands of calls). Each round is real work too (the CUDA driver's, the kernel's), so the
 * rounds also stop once they have taken their time budget, judged on their sum: one round that a collection or the
 * scheduler held up does not end them.
 */
public final class WarmUpRounds {
    private WarmUpRounds() {}

    /**
     * Runs {@code round} up to {@code rounds} times, while the runs have taken less than {@code budgetNanos} in all
     * and each returned true.
     *
     * @param round one round; false ends the rounds
     * @param rounds the most rounds
     * @param budgetNanos the time the rounds may take in all
     * @return the rounds run
     */
    public static int repeat(BooleanSupplier round, int rounds, long budgetNanos) {
        return repeat(round, rounds, budgetNanos, System::nanoTime);
    }

    /** As {@link #repeat(BooleanSupplier, int, long)} on {@code clock} (tests give their own). */
    static int repeat(BooleanSupplier round, int rounds, long budgetNanos, LongSupplier clock) {
        long spent = 0;
        int made = 0;
        while (made < rounds && spent < budgetNanos) {
            long t0 = clock.getAsLong();
            boolean goOn = round.getAsBoolean();
            spent += clock.getAsLong() - t0;
            made++;
            if (!goOn) {
                break;
            }
        }
        return made;
    }
}
