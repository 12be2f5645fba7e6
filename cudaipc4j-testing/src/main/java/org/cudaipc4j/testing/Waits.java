package org.cudaipc4j.testing;

import java.util.function.BooleanSupplier;

/** Waiting in tests for something another thread or process does, instead of sleeping for a guessed time. */
public final class Waits {
    private Waits() {}

    /** Polls {@code condition} every 10 ms for up to {@code millis}; returns whether it became true. */
    public static boolean until(long millis, BooleanSupplier condition) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }
}
