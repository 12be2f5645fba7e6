package org.cudaipc4j.coord;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Watches the processes of one group, one per {@link ControlBlock} slot, and ends the group cleanly when anything
 * goes wrong. Members are started here from command lines ({@link #start(List)}: any program; {@link JvmCommand}
 * builds those of JVMs like this one), or started elsewhere and {@linkplain #adopt adopted}. Member {@code i} is
 * expected to join slot {@code i} ({@link ChildRuntime#join}), which makes it heartbeat.
 *
 * <p>{@link #awaitAll} treats a non-zero exit, a death by signal and a missed heartbeat as a failure: it sets the
 * block's abort word (so the siblings' barriers throw), gives the others {@link Options#gracePeriod()} to finish,
 * then terminates them (SIGTERM, then SIGKILL a second later). A shutdown hook does the same if this JVM is shut
 * down (SIGINT, SIGTERM), and the block's own hook unlinks its segment.
 *
 * <p>Not thread-safe, except {@link #close()}, which may be called from any thread.
 */
public final class Supervisor implements AutoCloseable {
    private static final long POLL_MILLIS = 20;
    private static final Duration TERM_TO_KILL = Duration.ofSeconds(1);
    private static final Duration REAP_WAIT = Duration.ofSeconds(2);
    private static final Duration OUTPUT_DRAIN = Duration.ofSeconds(1);

    /**
     * How the supervisor behaves.
     *
     * @param gracePeriod      how long the others may run on after a failure before they are terminated
     * @param heartbeatTimeout a member whose heartbeat stalls this long (after its first one) is killed and failed
     * @param prefixOutput     prefix each line of member {@code i}'s output with {@code "[i] "}
     * @param out              where the started members' standard output goes, line by line
     * @param err              where the started members' standard error goes, line by line
     * @param environment      variables set for the started members, on top of this process's environment
     */
    public record Options(Duration gracePeriod, Duration heartbeatTimeout, boolean prefixOutput, PrintStream out,
            PrintStream err, Map<String, String> environment) {
        public Options {
            environment = Map.copyOf(environment);
            Objects.requireNonNull(gracePeriod, "gracePeriod");
            Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
            Objects.requireNonNull(out, "out");
            Objects.requireNonNull(err, "err");
            if (gracePeriod.isNegative()) {
                throw new IllegalArgumentException("grace period must not be negative, got " + gracePeriod);
            }
            if (heartbeatTimeout.isNegative() || heartbeatTimeout.isZero()) {
                throw new IllegalArgumentException("heartbeat timeout must be positive, got " + heartbeatTimeout);
            }
        }

        /** Grace 2 s, heartbeat timeout 5 s, prefixed output to {@code System.out}/{@code System.err}. */
        public static Options defaults() {
            return new Options(Duration.ofSeconds(2), Duration.ofSeconds(5), true, System.out, System.err, Map.of());
        }

        public Options withGracePeriod(Duration d) {
            return new Options(d, heartbeatTimeout, prefixOutput, out, err, environment);
        }

        public Options withHeartbeatTimeout(Duration d) {
            return new Options(gracePeriod, d, prefixOutput, out, err, environment);
        }

        public Options withPrefixOutput(boolean prefix) {
            return new Options(gracePeriod, heartbeatTimeout, prefix, out, err, environment);
        }

        public Options withOutput(PrintStream newOut, PrintStream newErr) {
            return new Options(gracePeriod, heartbeatTimeout, prefixOutput, newOut, newErr, environment);
        }

        public Options withEnvironment(Map<String, String> variables) {
            return new Options(gracePeriod, heartbeatTimeout, prefixOutput, out, err, variables);
        }
    }

    /**
     * One failed member.
     *
     * @param index  the member's index
     * @param reason e.g. {@code "exit code 1"}, {@code "killed by signal 9 (SIGKILL)"},
     *               {@code "missed heartbeat for 3.0 s"}, {@code "timed out after 30 s (--timeout) waiting for ..."}
     */
    public record Failure(int index, String reason) {}

    /**
     * How the group ended.
     *
     * @param failures  failed members, the root cause first: the member that declared the failure
     *                  ({@link ChildRuntime#fail}), else the first failure detected
     * @param exitCodes each member's exit code by index (128+N for a death by signal N; -1 if it could not be reaped
     *                  or, for an adopted member, is not known)
     */
    public record Outcome(List<Failure> failures, List<Integer> exitCodes) {
        public Outcome {
            failures = List.copyOf(failures);
            exitCodes = List.copyOf(exitCodes);
        }

        /** True when every member exited 0 in time. */
        public boolean ok() {
            return failures.isEmpty();
        }
    }

    private final int processCount;
    private final Options options;
    /** Set at construction or by {@link #watch}; read by the shutdown hook. */
    private volatile ControlBlock block;
    private final List<Member> members = new ArrayList<>();
    private final Semaphore exits = new Semaphore(0);
    private final List<Failure> failures = new ArrayList<>();
    private final Object lifecycle = new Object();
    private Thread shutdownHook;
    private volatile boolean closed;

    /** A supervisor for the group of {@code block}; the caller keeps owning the block. */
    public Supervisor(ControlBlock block, Options options) {
        this.block = Objects.requireNonNull(block, "block");
        this.processCount = block.processCount();
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * A supervisor for a group of up to {@code processCount} members whose block does not exist yet: members may
     * be {@linkplain #start started} first (they {@linkplain ChildRuntime#join wait} for the block), so that their
     * start-up overlaps the block's creation; {@link #watch} names the block before anything waits for them. Until
     * then a failure or shutdown only kills them.
     */
    public Supervisor(int processCount, Options options) {
        if (processCount < 1 || processCount > ControlBlock.MAX_PROCESSES) {
            throw new IllegalArgumentException("process count must be 1 to " + ControlBlock.MAX_PROCESSES + ", got "
                    + processCount);
        }
        this.block = null;
        this.processCount = processCount;
        this.options = Objects.requireNonNull(options, "options");
    }

    /** Names the block of a supervisor made without one; the caller keeps owning it. */
    public void watch(ControlBlock block) {
        Objects.requireNonNull(block, "block");
        if (this.block != null) {
            throw new IllegalStateException("supervisor already watches control block " + this.block.name());
        }
        if (block.processCount() != processCount) {
            throw new IllegalArgumentException("control block " + block.name() + " has " + block.processCount()
                    + " process slots, the supervisor was made for " + processCount);
        }
        this.block = block;
    }

    private ControlBlock block() {
        ControlBlock b = block;
        if (b == null) {
            throw new IllegalStateException("the supervisor has no control block to watch yet (see watch)");
        }
        return b;
    }

    /**
     * Starts one JVM like this one per element of {@code argsPerChild} ({@link JvmCommand#of}), all at once. Child
     * {@code i} runs {@code mainClass} with {@code argsPerChild.get(i)} and is watched through slot {@code i}.
     *
     * @throws CoordinationException when a child cannot be started (those already started are killed)
     */
    public void start(String mainClass, List<List<String>> argsPerChild) {
        Objects.requireNonNull(mainClass, "mainClass");
        List<List<String>> commands = new ArrayList<>(argsPerChild.size());
        List<String> base = JvmCommand.base();
        for (List<String> args : argsPerChild) {
            commands.add(JvmCommand.from(base, List.of(), mainClass, args));
        }
        start(commands);
    }

    /**
     * Starts one process per command line, all at once (none waits for another), with {@link Options#environment()}
     * added to this process's environment and their output copied to {@link Options#out()} and
     * {@link Options#err()}. Member {@code i} runs {@code commands.get(i)} and is watched through slot {@code i}.
     *
     * @throws CoordinationException when one cannot be started (those already started are killed)
     */
    public void start(List<List<String>> commands) {
        int n = commands.size();
        if (n < 1 || n > processCount) {
            throw new IllegalArgumentException("need 1 to " + processCount + " processes for "
                    + (block != null ? "control block " + block.name() : "this group") + ", got " + n);
        }
        synchronized (lifecycle) {
            beginWatching();
            boolean inherit = !options.prefixOutput() && options.out() == System.out && options.err() == System.err;
            for (int i = 0; i < n; i++) {
                List<String> command = commands.get(i);
                ProcessBuilder pb = new ProcessBuilder(command);
                if (!options.environment().isEmpty()) {
                    pb.environment().putAll(options.environment());
                }
                if (inherit) {
                    pb.redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
                }
                Process process;
                try {
                    process = pb.start();
                } catch (IOException e) {
                    killAll();
                    throw new CoordinationException("cannot start process " + i + " (" + command.getFirst() + "): "
                            + e.getMessage(), e);
                }
                Member member = add(new Member(i, process, process.toHandle()));
                closeQuietly(process);
                if (!inherit) {
                    String prefix = options.prefixOutput() ? "[" + i + "] " : "";
                    member.pumps.add(OutputPump.start(process.getInputStream(), options.out(), prefix, "out-" + i));
                    member.pumps.add(OutputPump.start(process.getErrorStream(), options.err(), prefix, "err-" + i));
                }
            }
        }
    }

    /**
     * Watches a process this supervisor did not start (another launcher's, a container's) as member {@code index}.
     * Its exit code cannot be known: it counts as a success when its slot says {@link ProcessStatus#DONE} or
     * {@link ProcessStatus#RELEASED} when it is gone, else as a failure. A failure of the group terminates it as it
     * does the others, where this user may signal it.
     */
    public void adopt(int index, ProcessHandle process) {
        Objects.requireNonNull(process, "process");
        if (index < 0 || index >= processCount) {
            throw new IndexOutOfBoundsException("member " + index + " out of range 0.." + (processCount - 1));
        }
        synchronized (lifecycle) {
            for (Member m : members) {
                if (m.index == index) {
                    throw new IllegalStateException("member " + index + " is already watched (pid " + m.handle.pid()
                            + ")");
                }
            }
            beginWatching();
            add(new Member(index, null, process));
        }
    }

    private void beginWatching() {
        if (closed) {
            throw new IllegalStateException("supervisor is closed");
        }
        if (shutdownHook == null) {
            shutdownHook = Thread.ofPlatform().name("cudaipc4j-supervisor-shutdown").unstarted(this::onShutdown);
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        } else if (members.stream().anyMatch(m -> m.process != null)) {
            throw new IllegalStateException("supervisor already started its processes");
        }
    }

    private Member add(Member member) {
        members.add(member);
        member.onExit().thenRun(exits::release);
        return member;
    }

    /** The pids of the members, in the order they were started or adopted (empty before). */
    public List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        for (Member m : members) {
            pids.add(m.handle.pid());
        }
        return Collections.unmodifiableList(pids);
    }

    /** As {@link #awaitAll(Deadline)}, with {@code timeout} from now as "the supervisor's limit". */
    public Outcome awaitAll(Duration timeout) {
        return awaitAll(Deadline.after(timeout, "the supervisor's limit"));
    }

    /**
     * Waits for every member to exit (calling it again returns the same outcome). On the first failure (non-zero
     * exit, death by signal, missed heartbeat) it aborts the group, lets the others run for the grace period, then
     * terminates them. Returns by the deadline plus the time to reap killed members; members still running then are
     * killed and fail with a reason that names the deadline's limit.
     */
    public Outcome awaitAll(Deadline deadline) {
        if (members.isEmpty()) {
            throw new IllegalStateException("awaitAll before start");
        }
        ControlBlock block = block();
        long now = System.nanoTime();
        long graceNanos = options.gracePeriod().toNanos();
        long heartbeatNanos = options.heartbeatTimeout().toNanos();
        long failedAt = now;
        int firstFailed = failures.isEmpty() ? -1 : failures.getFirst().index();
        long termSentAt = 0;
        boolean killSent = false;
        for (Member m : members) {
            m.lastChange = now;
        }
        while (true) {
            now = System.nanoTime();
            boolean running = false;
            for (Member m : members) {
                if (m.exitCode != null) {
                    continue;
                }
                if (!m.isAlive()) {
                    m.exitCode = m.exitCode(block);
                    if (m.exitCode != 0 && !m.failureRecorded) {
                        String reason = m.cause != null ? m.cause + " (" + m.describeExit(block) + ")"
                                : m.describeExit(block);
                        failures.add(new Failure(m.index, reason));
                        m.failureRecorded = true;
                        if (firstFailed < 0) {
                            firstFailed = m.index;
                            failedAt = now;
                            abortQuietly("process " + m.index + " failed (" + reason + ")");
                        }
                    }
                    continue;
                }
                running = true;
                if (m.failureRecorded) {
                    continue;
                }
                long hb = block.lastHeartbeatMillis(m.index);
                if (hb != m.lastHeartbeat) {
                    m.lastHeartbeat = hb;
                    m.lastChange = now;
                } else if (hb != 0 && now - m.lastChange > heartbeatNanos && !finishing(m.index)) {
                    String reason = "missed heartbeat for " + Durations.format(Duration.ofNanos(now - m.lastChange));
                    failures.add(new Failure(m.index, reason));
                    m.failureRecorded = true;
                    m.kill();
                    if (firstFailed < 0) {
                        firstFailed = m.index;
                        failedAt = now;
                        abortQuietly("process " + m.index + " failed (" + reason + ")");
                    }
                }
            }
            if (!running) {
                break;
            }
            if (deadline.hasPassed()) {
                abortQuietly(deadline.timedOut("the group to finish"));
                for (Member m : members) {
                    if (m.exitCode == null && m.isAlive()) {
                        if (!m.failureRecorded) {
                            failures.add(new Failure(m.index, deadline.timedOut("it to finish (its status was "
                                    + block.status(m.index) + ")")));
                            m.failureRecorded = true;
                        }
                        m.kill();
                    }
                }
                reapAll(block);
                break;
            }
            if (firstFailed >= 0 && termSentAt == 0 && now - failedAt >= graceNanos) {
                termSentAt = now;
                for (Member m : members) {
                    if (m.exitCode == null && m.isAlive() && m.cause == null) {
                        m.cause = "terminated after process " + firstFailed + " failed";
                        m.handle.destroy();
                    }
                }
            }
            if (termSentAt != 0 && !killSent && now - termSentAt >= TERM_TO_KILL.toNanos()) {
                killSent = true;
                for (Member m : members) {
                    if (m.exitCode == null && m.isAlive()) {
                        m.kill();
                    }
                }
            }
            try {
                if (exits.tryAcquire(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    exits.drainPermits();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abortQuietly("the parent was interrupted");
                killAll();
                reapAll(block);
                throw new CoordinationException("interrupted while waiting for the group; all were killed");
            }
        }
        // The members' last lines come before whatever the caller prints about the outcome.
        joinPumps(OUTPUT_DRAIN);
        int watched = members.stream().mapToInt(m -> m.index + 1).max().orElse(0);
        List<Integer> codes = new ArrayList<>(Collections.nCopies(watched, -1));
        for (Member m : members) {
            codes.set(m.index, m.exitCode == null ? -1 : m.exitCode);
        }
        return new Outcome(rootCauseFirst(failures), codes);
    }

    /** As {@link #awaitReleased(Deadline)}, with {@code timeout} from now. */
    public boolean awaitReleased(Duration timeout) {
        return awaitReleased(Deadline.after(timeout, "the supervisor's limit"));
    }

    /**
     * Waits until every member has {@linkplain ProcessStatus#RELEASED released} what it opened (status RELEASED or
     * DONE, or it exited 0), so the parent can free its exports while the members tear down and exit. Returns
     * false at once when a member fails (status FAILED, a non-zero exit, or an abort of the group) and at the
     * deadline; the caller should then {@link #awaitAll} before freeing anything.
     */
    public boolean awaitReleased(Deadline deadline) {
        if (members.isEmpty()) {
            throw new IllegalStateException("awaitReleased before start");
        }
        ControlBlock block = block();
        IdleStrategy idle = IdleStrategy.forLongWait();
        while (true) {
            boolean all = true;
            for (Member m : members) {
                ProcessStatus s = block.status(m.index);
                if (s == ProcessStatus.FAILED) {
                    return false;
                }
                if (s == ProcessStatus.RELEASED || s == ProcessStatus.DONE) {
                    continue;
                }
                if (!m.isAlive()) {
                    if (m.exitCode(block) != 0) {
                        return false;
                    }
                    continue;
                }
                all = false;
            }
            if (all) {
                return true;
            }
            if (block.isAborted() || deadline.hasPassed()) {
                return false;
            }
            idle.idle();
        }
    }

    /**
     * Siblings that leave because of an abort may exit before the process that declared the failure; put that
     * one first. It is the aborter recorded in the block, when it marked itself FAILED ({@link ChildRuntime#fail}),
     * which a process that merely noticed a dead or late sibling does not do.
     */
    private List<Failure> rootCauseFirst(List<Failure> found) {
        ControlBlock block = block();
        try {
            var abort = block.abortState();
            if (abort.isEmpty() || abort.get().process() < 0
                    || block.status(abort.get().process()) != ProcessStatus.FAILED) {
                return found;
            }
            int culprit = abort.get().process();
            List<Failure> ordered = new ArrayList<>(found);
            for (int i = 0; i < ordered.size(); i++) {
                if (ordered.get(i).index() == culprit) {
                    ordered.addFirst(ordered.remove(i));
                    break;
                }
            }
            return ordered;
        } catch (RuntimeException unmapped) {
            return found;
        }
    }

    /** Kills whatever still runs (and their descendants) and waits briefly for them. Idempotent. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        killAll();
        waitForExit(REAP_WAIT);
        joinPumps(OUTPUT_DRAIN);
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to; it sees closed and does nothing.
            }
        }
    }

    /** "exit code 1", or "killed by signal 9 (SIGKILL)" for 128+N. */
    public static String describeExit(int code) {
        if (code > 128 && code < 128 + 65) {
            int signal = code - 128;
            return "killed by signal " + signal + signalName(signal);
        }
        return "exit code " + code;
    }

    private static String signalName(int signal) {
        String[] names = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
                "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD",
                "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM",
                "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};
        return signal < names.length ? " (" + names[signal] + ")" : "";
    }

    private boolean finishing(int index) {
        ProcessStatus s = block().status(index);
        return s == ProcessStatus.DONE || s == ProcessStatus.FAILED || s == ProcessStatus.RELEASED;
    }

    private void abortQuietly(String reason) {
        ControlBlock block = this.block;
        if (block == null) {
            return; // members that wait for the block are killed; there is nobody to tell
        }
        try {
            block.abort(ControlBlock.PARENT, reason);
        } catch (RuntimeException e) {
            // The block is already unmapped (shutdown path); the members are being killed anyway.
        }
    }

    private void killAll() {
        for (Member m : members) {
            if (m.isAlive()) {
                m.kill();
            }
        }
    }

    /** After a kill: wait for the exits and record the codes; a member that cannot be reaped keeps null. */
    private void reapAll(ControlBlock block) {
        waitForExit(REAP_WAIT);
        for (Member m : members) {
            if (m.exitCode == null && !m.isAlive()) {
                m.exitCode = m.exitCode(block);
                if (m.exitCode != 0 && !m.failureRecorded) {
                    m.failureRecorded = true;
                    failures.add(new Failure(m.index, m.cause != null ? m.cause : m.describeExit(block)));
                }
            }
        }
    }

    /** Waits (bounded: a grandchild may hold a pipe open) until the output of exited members is copied. */
    private void joinPumps(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Member m : members) {
            for (OutputPump p : m.pumps) {
                if (!p.join(Duration.ofNanos(deadline - System.nanoTime()))) {
                    return;
                }
            }
        }
    }

    private void waitForExit(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Member m : members) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                m.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return;
            }
        }
    }

    /** Shutdown hook: this JVM is going away (SIGINT, SIGTERM, exit) with the group still running. */
    private void onShutdown() {
        if (closed) {
            return;
        }
        abortQuietly("the parent is shutting down");
        for (Member m : members) {
            if (m.isAlive()) {
                m.handle.destroy();
            }
        }
        waitForExit(TERM_TO_KILL);
        killAll();
        waitForExit(TERM_TO_KILL);
    }

    private static void closeQuietly(Process process) {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // Nothing was written to the member's stdin.
        }
    }

    /** A member of the group: a process started here ({@code process} set) or adopted. */
    private static final class Member {
        final int index;
        final Process process;
        final ProcessHandle handle;
        final List<OutputPump> pumps = new ArrayList<>(2);
        Integer exitCode;
        long lastHeartbeat;
        long lastChange;
        boolean failureRecorded;
        String cause;

        Member(int index, Process process, ProcessHandle handle) {
            this.index = index;
            this.process = process;
            this.handle = handle;
        }

        boolean isAlive() {
            return process != null ? process.isAlive() : handle.isAlive();
        }

        /**
         * Completes once {@link #isAlive()} is false. For a process started here that is the {@link Process}'s own
         * future: its handle's can complete a moment before the {@code Process} knows its exit code.
         */
        java.util.concurrent.CompletableFuture<?> onExit() {
            return process != null ? process.onExit() : handle.onExit();
        }

        /** The exit code; for an adopted member 0 when its slot says it finished, else -1 (not known). */
        int exitCode(ControlBlock block) {
            if (process != null) {
                return process.exitValue();
            }
            ProcessStatus s = block.status(index);
            return s == ProcessStatus.DONE || s == ProcessStatus.RELEASED ? 0 : -1;
        }

        String describeExit(ControlBlock block) {
            if (process != null) {
                return Supervisor.describeExit(process.exitValue());
            }
            return "exited with status " + block.status(index) + " (not started here: exit code unknown)";
        }

        void kill() {
            handle.descendants().forEach(ProcessHandle::destroyForcibly);
            handle.destroyForcibly();
        }
    }
}
