package org.cudaipc4j.coord;

import java.time.Duration;

/**
 * The one test of "the process that started this one is gone", and the watch that acts on it. A child that must not
 * outlive its starter (a simpleIPC child, an NCCL rank, a run of the tool under a bench) learns the starter's pid
 * from it, and ends within one period of the kernel handing this process to another parent, which it does as the
 * starter exits (also one killed by SIGKILL and not yet reaped), before the pid can be reused.
 * {@link ChildRuntime}'s watchdog asks {@link #gone} beside its heartbeat; a process without a control block starts
 * {@link #whenGone}, which also ends it once the kernel has shown the starter stopped (SIGSTOP, a debugger) for
 * longer than the silence limit ({@link Liveness}), as a silent heartbeat would: a stopped starter supervises and
 * reports nothing. The stop is counted as {@link StopCount} counts it, so a job stopped whole (Ctrl-Z) and
 * continued goes on.
 */
public final class ParentWatch {
    /** How often {@link #whenGone}'s thread looks. */
    public static final Duration PERIOD = Duration.ofMillis(200);

    /** The reason {@link End} is given for a starter that has exited. */
    public static final String GONE = "is gone";

    /** What ends a process whose starter is gone or stopped responding. */
    @FunctionalInterface
    public interface End {
        /**
         * Ends this process (or does what its owner wants done then).
         *
         * @param starter the starter's pid
         * @param why what became of it, to follow "the process (pid N)" in a line: {@link #GONE}, or
         *     "stopped responding for 3.0 s"
         */
        void starterEnded(long starter, String why);
    }

    private ParentWatch() {}

    /**
     * {@return the pid of the process that started this one}: the one a {@link Supervisor} named for its members
     * ({@code CUDAIPC4J_STARTER_PID}), else this process's parent now. Only the starter's own word holds when it may
     * have died before this process looked: this process then already has another parent.
     *
     * @throws IllegalArgumentException when the variable holds no pid of another process
     */
    public static long starter() {
        String value = CoordSettings.STARTER_PID.get();
        return value == null || value.isBlank() ? Pids.parentPid() : pidIn(CoordSettings.STARTER_PID.name(), value);
    }

    /**
     * {@link #whenGone(long, End)} for the starter a {@link Supervisor} named ({@link #starter}); nothing when none
     * did.
     *
     * @param end what ends this process, given the starter's pid and what became of it
     * @throws IllegalArgumentException when the variable holds no pid of another process, or
     *     {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} no silence limit
     */
    public static void whenStarterGone(End end) {
        whenGone(CoordSettings.STARTER_PID.name(), CoordSettings.STARTER_PID.get(), end);
    }

    /**
     * {@return true once {@code starter} is gone or is no longer this process's parent}
     *
     * @param starter the pid of the process that started this one, as this process learnt it
     */
    public static boolean gone(long starter) {
        return Pids.parentGone(starter);
    }

    /**
     * Waits, at most {@code longest}, until {@code /proc} too counts the starter that {@link #gone} found gone as
     * ended: a process whose exit re-parented this one may still show as a zombie whose threads are ending for a
     * moment, and the sweeps of what it named judge it by {@code /proc}.
     *
     * @param starter the pid of the process that started this one
     * @param longest the longest wait
     * @return whether it has ended by {@code /proc}
     */
    public static boolean awaitEnded(long starter, Duration longest) {
        IdleStrategy idle = IdleStrategy.periodic(Duration.ofMillis(5));
        long deadline = System.nanoTime() + longest.toNanos();
        while (Pids.isAlive(starter)) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    /**
     * {@link #whenGone(long, End)} for the pid that the environment variable {@code variable} holds ({@code value},
     * read by the caller); nothing when the variable is not set.
     *
     * @param variable the environment variable's name, for the message of a value that is no pid
     * @param value its value, or null
     * @param end what ends this process, given the pid and what became of that process
     * @throws IllegalArgumentException when the variable holds no pid of another process, or
     *     {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} no silence limit
     */
    public static void whenGone(String variable, String value, End end) {
        if (value == null || value.isBlank()) {
            return;
        }
        whenGone(pidIn(variable, value), end);
    }

    private static long pidIn(String variable, String value) {
        long pid;
        try {
            pid = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            pid = -1;
        }
        if (pid <= 1 || pid == Pids.self()) {
            throw new IllegalArgumentException(variable + "=" + value + " is not the pid of the process that"
                    + " started this one");
        }
        return pid;
    }

    /**
     * Runs {@code end} with {@code starter} once it is {@linkplain #gone gone} ({@link #GONE}), at once when it
     * already is, else from a daemon thread within {@link #PERIOD} of it; or once the kernel has shown it stopped for
     * longer than the silence limit by this process's clock ({@link StopCount}), "stopped responding for 3.0 s".
     *
     * @param starter the pid of the process that started this one
     * @param end what ends this process, given the pid and what became of that process
     * @throws IllegalArgumentException when {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} is no silence limit
     */
    public static void whenGone(long starter, End end) {
        if (gone(starter)) {
            end.starterEnded(starter, GONE);
            return;
        }
        StopCount stop = new StopCount(Liveness.silenceLimit());
        Thread.ofPlatform().daemon().name("cudaipc4j-parent-watch-" + starter).start(() -> {
            IdleStrategy idle = IdleStrategy.periodic(PERIOD);
            String why;
            try {
                while ((why = verdict(starter, stop)) == null) {
                    idle.idleInterruptibly();
                }
            } catch (InterruptedException e) {
                return;
            }
            end.starterEnded(starter, why);
        });
    }

    /** One look at {@code starter}: what became of it, or null while it runs (or has not been stopped for long). */
    private static String verdict(long starter, StopCount stop) {
        long now = System.nanoTime();
        if (gone(starter)) {
            return GONE;
        }
        Duration stopped = stop.look(now, Pids.isStopped(starter));
        return stopped == null ? null : HeartbeatWatch.stoppedResponding(stopped);
    }
}
