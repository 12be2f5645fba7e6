package org.cudaipc4j.coord.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Removes what this process made in shared places (shared-memory segment files, sockets and their directories) when
 * the JVM shuts down (SIGINT, SIGTERM, exit) before the owners removed it themselves. What is made is known here
 * from the moment it exists: {@link #make} runs the making under a guard that the shutdown waits for, and refuses it
 * once the shutdown began, so nothing made while the JVM shuts down is missed.
 */
public final class ShutdownRemovals {
    /** The name of the shutdown hook's thread, as thread dumps show it. */
    private static final String HOOK_NAME = "cudaipc4j-cleanup";

    /** Removes what one owner made; run at most once by the shutdown, and not at all once forgotten. */
    @FunctionalInterface
    public interface Removal {
        /**
         * Removes the thing.
         *
         * @throws Exception when it cannot; the shutdown prints its message on standard error and goes on
         */
        void remove() throws Exception;
    }

    private static final Set<Removal> KEPT = ConcurrentHashMap.newKeySet();
    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock();
    private static boolean shuttingDown; // guarded by LOCK

    static {
        try {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name(HOOK_NAME)
                    .unstarted(ShutdownRemovals::removeAll));
        } catch (IllegalStateException e) {
            shuttingDown = true; // first used while the JVM shuts down: no hook, so nothing may be made
        }
    }

    private ShutdownRemovals() {}

    /**
     * Runs {@code making}, which makes things and {@linkplain #keep keeps} their removal before it returns.
     *
     * @param <T> what {@code making} returns
     * @param making makes the things and keeps their removals
     * @param refused the exception to throw when the JVM is already shutting down
     * @return what {@code making} returned
     * @throws RuntimeException the one {@code refused} gives, without running {@code making}, once the JVM shuts down
     */
    public static <T> T make(Supplier<T> making, Supplier<? extends RuntimeException> refused) {
        LOCK.readLock().lock();
        try {
            if (shuttingDown) {
                throw refused.get();
            }
            return making.get();
        } finally {
            LOCK.readLock().unlock();
        }
    }

    /** {@return whether the JVM's shutdown has begun here: from then on {@link #make} refuses} */
    public static boolean shuttingDown() {
        LOCK.readLock().lock();
        try {
            return shuttingDown;
        } finally {
            LOCK.readLock().unlock();
        }
    }

    /**
     * Runs {@code removal} if the JVM shuts down before it is {@linkplain #forget forgotten}. Call it from inside
     * {@link #make}, or for something whose removal is already kept.
     *
     * @param removal the removal to run at shutdown
     */
    public static void keep(Removal removal) {
        KEPT.add(removal);
    }

    /**
     * The owner removed what {@code removal} would have, or hands it to another removal.
     *
     * @param removal the removal to drop
     */
    public static void forget(Removal removal) {
        KEPT.remove(removal);
    }

    private static void removeAll() {
        LOCK.writeLock().lock(); // waits for makings under way; later ones are refused
        try {
            shuttingDown = true;
        } finally {
            LOCK.writeLock().unlock();
        }
        for (Removal r : KEPT) {
            try {
                r.remove();
            } catch (Exception e) {
                System.err.println("cudaipc4j: " + e.getMessage());
            }
        }
    }
}
