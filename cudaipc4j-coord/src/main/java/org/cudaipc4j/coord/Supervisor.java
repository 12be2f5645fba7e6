package org.cudaipc4j.coord;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Watches the processes of one group, one per {@link ControlBlock} slot, and ends the group cleanly when anything
 * goes wrong. Members are started here from command lines ({@link #start(List)}: any program; {@link JvmCommand}
 * builds those of JVMs like this one), or started elsewhere and {@linkplain #adopt adopted}. Member {@code i} is
 * expected to join slot {@code i} ({@link ChildRuntime#join}), which makes it heartbeat; while members run, the
 * parent heartbeats in the block too ({@link ParentHeartbeat}), so that the children's waits notice a stopped parent.
 *
 * <p>{@link #awaitAll} and {@link #awaitReleased} treat a non-zero exit, a death by signal and a member that stopped
 * responding (no heartbeat for {@link Options#heartbeatTimeout()}, judged by {@link HeartbeatWatch}: a SIGSTOP, a
 * hang) as a failure; the silent member is killed at once (SIGKILL). On the first failure {@link #awaitAll} sets the
 * block's abort word (so the siblings' barriers throw), gives the others {@link Options#gracePeriod()} to finish,
 * then terminates them (SIGTERM, then SIGKILL a second later). A shutdown hook does the same if this JVM is shut
 * down (SIGINT, SIGTERM), and the block's own hook unlinks its segment.
 *
 * <p><b>Which failure is blamed.</b> When one member fails, its siblings notice (a dead process, an aborted
 * barrier) and leave too, often within milliseconds and before this JVM has reaped the first. The outcome names the
 * root cause first ({@link Outcome#failures()}): the member that declared the failure ({@link ChildRuntime#fail}),
 * else the member whose failure came first. Exits are ordered as the kernel saw them, not as the supervisor happened
 * to look: each member gets a pidfd right after its start, and the kernel queues the pidfds on one epoll instance
 * in the order their processes end (every thread gone). Siblings count a process dead at that same moment, not
 * when its main thread ends, so one that leaves because of a death is placed after it. If member A has ended before
 * member B begins to exit, A is placed first, however late or loaded the supervisor is; two exits at the same
 * instant are placed in the order the kernel queued them. A member already gone when it was started or adopted (a
 * command that ends at once) is placed at that moment: never after a later exit, possibly after an earlier one.
 * Where pidfds or epoll are unavailable (Linux before 5.3, a seccomp filter that refuses them), exits are ordered
 * as the JVM reports them, which may swap two exits a scheduling delay apart. A silent member counts when it is
 * detected, a timeout at the deadline, and the exit of a member the supervisor ended no earlier than its signal.
 *
 * <p>Not thread-safe, except {@link #close()}, which may be called from any thread.
 */
public final class Supervisor implements AutoCloseable {
    /**
     * How the supervisor behaves.
     *
     * @param gracePeriod      how long the others may run on after a failure before they are terminated
     * @param heartbeatTimeout a member whose heartbeat stalls this long (after its first one) is killed and failed;
     *                         the default is {@link Liveness#silenceLimit()}, by which the children judge the parent
     * @param prefixOutput     prefix each line of member {@code i}'s output with {@code "[i] "}
     * @param out              where the started members' standard output goes, line by line
     * @param err              where the started members' standard error goes, line by line
     * @param environment      variables set for the started members, on top of this process's environment
     */
    public record Options(Duration gracePeriod, Duration heartbeatTimeout, boolean prefixOutput, PrintStream out,
            PrintStream err, Map<String, String> environment) {
        /**
         * Copies the environment and checks the durations.
         *
         * @throws IllegalArgumentException when the grace period is negative or the heartbeat timeout not positive
         */
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

        /**
         * Grace 2 s, heartbeat timeout {@link Liveness#silenceLimit()} (3 s unless {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}
         * sets another), prefixed output to {@code System.out}/{@code System.err}.
         *
         * @return the default options
         * @throws IllegalArgumentException when {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} holds no limit
         */
        public static Options defaults() {
            return new Options(Duration.ofSeconds(2), Liveness.silenceLimit(), true, System.out, System.err,
                    Map.of());
        }

        /**
         * {@return these options with grace period {@code d}}
         *
         * @param d the new grace period
         */
        public Options withGracePeriod(Duration d) {
            return new Options(d, heartbeatTimeout, prefixOutput, out, err, environment);
        }

        /**
         * {@return these options with heartbeat timeout {@code d}}
         *
         * @param d the new heartbeat timeout
         */
        public Options withHeartbeatTimeout(Duration d) {
            return new Options(gracePeriod, d, prefixOutput, out, err, environment);
        }

        /**
         * {@return these options with {@code prefix} as whether to prefix the members' lines}
         *
         * @param prefix whether to prefix each line with {@code "[i] "}
         */
        public Options withPrefixOutput(boolean prefix) {
            return new Options(gracePeriod, heartbeatTimeout, prefix, out, err, environment);
        }

        /**
         * {@return these options with the members' output going to {@code newOut} and {@code newErr}}
         *
         * @param newOut where standard output goes
         * @param newErr where standard error goes
         */
        public Options withOutput(PrintStream newOut, PrintStream newErr) {
            return new Options(gracePeriod, heartbeatTimeout, prefixOutput, newOut, newErr, environment);
        }

        /**
         * {@return these options with {@code variables} set for the started members}
         *
         * @param variables the members' extra environment variables
         */
        public Options withEnvironment(Map<String, String> variables) {
            return new Options(gracePeriod, heartbeatTimeout, prefixOutput, out, err, variables);
        }
    }

    /**
     * One failed member.
     *
     * @param index  the member's index
     * @param reason e.g. {@code "exit code 1"}, {@code "killed by signal 9 (SIGKILL)"},
     *               {@code "stopped responding for 3.0 s"}, {@code "timed out after 30 s (--timeout) waiting for ..."}
     */
    public record Failure(int index, String reason) {}

    /**
     * How the group ended.
     *
     * @param failures  failed members, the root cause first: the member that declared the failure
     *                  ({@link ChildRuntime#fail}) when one did; else in the order the failures happened (see
     *                  "Which failure is blamed" in the class comment)
     * @param exitCodes each member's exit code by index (128+N for a death by signal N; -1 if it could not be reaped
     *                  or, for an adopted member, is not known)
     */
    public record Outcome(List<Failure> failures, List<Integer> exitCodes) {
        /** Copies the lists. */
        public Outcome {
            failures = List.copyOf(failures);
            exitCodes = List.copyOf(exitCodes);
        }

        /** {@return true when every member exited 0 in time} */
        public boolean ok() {
            return failures.isEmpty();
        }
    }

    private final int processCount;
    /** Set at construction or by {@link #watch}; read by the shutdown hook. */
    private volatile ControlBlock block;
    private final GroupWatch group;
    private final GroupStart starts;
    /** Set by {@link #withoutBlock}: the members are judged by their exits alone. */
    private boolean exitsOnly;
    private final Object heartbeatLock = new Object();
    /** Kept while members run and the block is known; guarded by {@link #heartbeatLock}, as is {@link #closed}. */
    private ParentHeartbeat heartbeat;
    private boolean closed;

    /**
     * A supervisor for the group of {@code block}; the caller keeps owning the block.
     *
     * @param block the group's control block
     * @param options how to behave
     */
    public Supervisor(ControlBlock block, Options options) {
        this.block = Objects.requireNonNull(block, "block");
        this.processCount = block.processCount();
        this.group = new GroupWatch(Objects.requireNonNull(options, "options"));
        this.starts = new GroupStart(processCount, options, group, () -> this.block);
    }

    /**
     * A supervisor for a group of up to {@code processCount} members whose block does not exist yet: members may
     * be {@linkplain #start started} first (they {@linkplain ChildRuntime#join wait} for the block), so that their
     * start-up overlaps the block's creation; {@link #watch} names the block before anything waits for them. Until
     * then a failure or shutdown only kills them.
     *
     * @param processCount the number of members
     * @param options how to behave
     */
    public Supervisor(int processCount, Options options) {
        if (processCount < 1 || processCount > ControlBlock.MAX_PROCESSES) {
            throw new IllegalArgumentException("process count must be 1 to " + ControlBlock.MAX_PROCESSES + ", got "
                    + processCount);
        }
        this.block = null;
        this.processCount = processCount;
        this.group = new GroupWatch(Objects.requireNonNull(options, "options"));
        this.starts = new GroupStart(processCount, options, group, () -> this.block);
    }

    /**
     * A supervisor for a group of up to {@code processCount} members that share no control block (NCCL ranks, a
     * benchmark's programs): {@link #awaitAll} judges them by their exits alone, with no heartbeat to watch and no
     * abort word to set; none is adopted or {@linkplain #awaitReleased released}.
     *
     * @param processCount the number of members
     * @param options how to behave ({@link Options#heartbeatTimeout()} does not apply)
     * @return the supervisor
     */
    public static Supervisor withoutBlock(int processCount, Options options) {
        Supervisor supervisor = new Supervisor(processCount, options);
        supervisor.exitsOnly = true;
        return supervisor;
    }

    /**
     * Names the block of a supervisor made without one; the caller keeps owning it.
     *
     * @param block the group's control block
     */
    public void watch(ControlBlock block) {
        Objects.requireNonNull(block, "block");
        if (exitsOnly) {
            throw new IllegalStateException("this supervisor watches a group without a control block");
        }
        if (this.block != null) {
            throw new IllegalStateException("supervisor already watches control block " + this.block.name());
        }
        if (block.processCount() != processCount) {
            throw new IllegalArgumentException("control block " + block.name() + " has " + block.processCount()
                    + " process slots, the supervisor was made for " + processCount);
        }
        this.block = block;
        if (!group.members().isEmpty()) {
            beat();
        }
    }

    /** Starts the parent's heartbeat once members run and the block is known (see {@link ParentHeartbeat}). */
    private void beat() {
        synchronized (heartbeatLock) {
            if (heartbeat == null && !closed && !exitsOnly && block != null) {
                heartbeat = ParentHeartbeat.start(block);
            }
        }
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
     * {@code i} runs {@code mainClass} with {@code argsPerChild.get(i)} and is watched through slot {@code i}. A JVM
     * on the module path passes it on, and starts a main class of a named module as {@code -m module/class}.
     *
     * @param mainClass the children's main class, or {@code module/class}
     * @param argsPerChild each child's arguments
     * @throws CoordinationException when a child cannot be started (see {@link #start(List)}), or could not find its
     *     main class (see {@link JvmCommand}); then none is started
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
     * @param commands each member's command line
     * @throws CoordinationException when one cannot be started, naming it and why; those already started are killed
     *                               and waited for (up to 2 s) before it is thrown
     */
    public void start(List<List<String>> commands) {
        launch(commands.stream().map(MemberCommand::of).toList(), false);
    }

    /**
     * As {@link #start(List)}, each member with what its {@link MemberCommand} adds: its own environment variables,
     * and its standard output lines handed to a consumer instead of {@link Options#out()}.
     *
     * @param commands each member's command line and what it alone gets
     * @throws CoordinationException when one cannot be started (see {@link #start(List)})
     */
    public void launch(List<MemberCommand> commands) {
        launch(commands, false);
    }

    /**
     * As {@link #start(List)}, but each member's standard input stays a pipe from this process, for what it must be
     * told and no other process may read (as {@code /proc/<pid>/cmdline} and {@code environ} can be): stream
     * {@code i} writes to member {@code i} ({@link RecordCodec} frames, read by {@link StarterInput}). The caller
     * closes the streams; a member reads the end of its input once its stream is closed or this process is gone.
     *
     * @param commands each member's command line
     * @return each member's standard input, by index
     * @throws CoordinationException as {@link #start(List)}
     */
    public List<OutputStream> startWithInput(List<List<String>> commands) {
        return launch(commands.stream().map(MemberCommand::of).toList(), true);
    }

    private List<OutputStream> launch(List<MemberCommand> commands, boolean keepInput) {
        List<OutputStream> inputs = starts.launch(commands, keepInput);
        beat();
        return inputs;
    }

    /**
     * Watches a process this supervisor did not start (another launcher's, a container's) as member {@code index}.
     * Its exit code cannot be known: it counts as a success when its slot says {@link ProcessStatus#DONE} or
     * {@link ProcessStatus#RELEASED} when it is gone, else as a failure. A failure of the group terminates it as it
     * does the others, where this user may signal it.
     *
     * @param index the member's slot
     * @param process the process to watch
     */
    public void adopt(int index, ProcessHandle process) {
        Objects.requireNonNull(process, "process");
        if (index < 0 || index >= processCount) {
            throw new IndexOutOfBoundsException("member " + index + " out of range 0.." + (processCount - 1));
        }
        if (exitsOnly) {
            throw new IllegalStateException("an adopted member is judged by its slot: this group has no control block");
        }
        starts.adopt(index, process);
        beat();
    }

    /** {@return the pids of the members, in the order they were started or adopted (empty before)} */
    public List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        for (Member m : group.members()) {
            pids.add(m.handle.pid());
        }
        return Collections.unmodifiableList(pids);
    }

    /** The descriptors the supervisor holds open to watch the exits (pidfds, epoll), for leak checks. */
    List<Integer> descriptors() {
        return group.descriptors();
    }

    /**
     * As {@link #awaitAll(Deadline)}, with {@code timeout} from now as "the supervisor's limit".
     *
     * @param timeout how long to wait
     * @return how the group ended
     */
    public Outcome awaitAll(Duration timeout) {
        return awaitAll(Deadline.after(timeout, "the supervisor's limit"));
    }

    /**
     * Waits for every member to exit (calling it again returns the same outcome). On the first failure (non-zero
     * exit, death by signal, a member that stopped responding) it aborts the group, lets the others run for the grace period, then
     * terminates them. Returns by the deadline plus the time to reap killed members; members still running then are
     * killed and fail with a reason that names the deadline's limit. Exits are recorded in the order they happened
     * (see {@link Outcome#failures()}), whenever this is called.
     *
     * @param deadline when to give up and kill what is left
     * @return how the group ended
     */
    public Outcome awaitAll(Deadline deadline) {
        if (group.members().isEmpty()) {
            throw new IllegalStateException("awaitAll before start");
        }
        return group.await(exitsOnly ? null : block(), deadline);
    }


    /**
     * As {@link #awaitReleased(Deadline)}, with {@code timeout} from now.
     *
     * @param timeout how long to wait
     * @return true when every member released
     */
    public boolean awaitReleased(Duration timeout) {
        return awaitReleased(Deadline.after(timeout, "the supervisor's limit"));
    }

    /**
     * Waits until every member has {@linkplain ProcessStatus#RELEASED released} what it opened (status RELEASED or
     * DONE, or it exited 0), so the parent can free its exports while the members tear down and exit. Returns
     * false at once when a member fails (status FAILED, a non-zero exit, a member that stopped responding, which is
     * killed and failed as {@link #awaitAll} does, or an abort of the group) and at the deadline; the caller should
     * then {@link #awaitAll} before freeing anything.
     *
     * @param deadline when to give up
     * @return true when every member released, false on a failure or at the deadline
     */
    public boolean awaitReleased(Deadline deadline) {
        if (group.members().isEmpty()) {
            throw new IllegalStateException("awaitReleased before start");
        }
        return group.awaitReleased(block(), deadline);
    }

    /** Kills whatever still runs (and their descendants) and waits briefly for them. Idempotent. */
    @Override
    public void close() {
        if (starts.close()) {
            ParentHeartbeat beating;
            synchronized (heartbeatLock) {
                closed = true;
                beating = heartbeat;
            }
            if (beating != null) {
                beating.close(); // after the kills: a child that saw it stop could blame the parent
            }
        }
    }

    /**
     * "exit code 1", or "killed by signal 9 (SIGKILL)" for 128+N.
     *
     * @param code an exit code
     * @return {@code "exit code N"}, or {@code "killed by signal N (SIGNAME)"} for 128+N
     */
    public static String describeExit(int code) {
        return Member.describeExitCode(code);
    }

    /** Shutdown hook: this JVM is going away (SIGINT, SIGTERM, exit) with the group still running. */
    void onShutdown() {
        starts.onShutdown();
    }
}
