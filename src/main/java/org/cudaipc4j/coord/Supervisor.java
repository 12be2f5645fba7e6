package org.cudaipc4j.coord;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Starts and watches the child JVMs of one process group, one per {@link ControlBlock} slot, and ends the group
 * cleanly when anything goes wrong.
 *
 * <p>Children are fresh JVMs: the same java binary, the same class path, {@code --enable-native-access=ALL-UNNAMED}
 * and the parent's {@code -D}/{@code -X}/{@code -XX} options (debugger agents and archive-writing options left
 * out). Child {@code i} watches slot {@code i} of the block: it is expected to {@link ChildRuntime#join join} with
 * index {@code i}, which makes it heartbeat.
 *
 * <p>{@link #awaitAll} treats a non-zero exit, a death by signal and a missed heartbeat as a failure: it sets the
 * block's abort word (so the siblings' barriers throw), gives the others {@link Options#gracePeriod()} to finish,
 * then terminates them (SIGTERM, then SIGKILL a second later). A shutdown hook does the same if the parent JVM is
 * shut down (SIGINT, SIGTERM), and the block's own hook unlinks its segment.
 *
 * <p>Not thread-safe, except {@link #close()}, which may be called from any thread.
 */
public final class Supervisor implements AutoCloseable {
    private static final long POLL_MILLIS = 20;
    private static final Duration TERM_TO_KILL = Duration.ofSeconds(1);
    private static final Duration REAP_WAIT = Duration.ofSeconds(2);
    private static final Duration OUTPUT_DRAIN = Duration.ofSeconds(1);
    private static final Set<String> OPTIONS_WITH_VALUE = Set.of("-cp", "-classpath", "--class-path", "-p",
            "--module-path", "--upgrade-module-path", "--add-modules", "--limit-modules", "--add-reads",
            "--add-exports", "--add-opens", "--patch-module", "--enable-native-access", "--source");
    private static final List<String> EXCLUDED_PREFIXES = List.of("-agentlib:jdwp", "-Xrunjdwp", "-Xdebug",
            "-Xnoagent", "-Xshare:dump", "-XX:AOTCacheOutput", "-XX:AOTConfiguration", "-XX:AOTMode=record",
            "-XX:AOTMode=create", "-XX:ArchiveClassesAtExit", "-XX:DumpLoadedClassList", "-Djava.class.path=");

    /**
     * How the supervisor behaves.
     *
     * @param gracePeriod      how long the others may run on after a failure before they are terminated
     * @param heartbeatTimeout a child whose heartbeat stalls this long (after its first one) is killed and failed
     * @param prefixOutput     prefix each line of child {@code i}'s output with {@code "[i] "}
     * @param out              where the children's standard output goes, line by line
     * @param err              where the children's standard error goes, line by line
     * @param environment      variables set for the children, on top of this process's environment
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

        /** As the canonical constructor, with no variables added to the children's environment. */
        public Options(Duration gracePeriod, Duration heartbeatTimeout, boolean prefixOutput, PrintStream out,
                PrintStream err) {
            this(gracePeriod, heartbeatTimeout, prefixOutput, out, err, Map.of());
        }

        /** Grace 2 s, heartbeat timeout 5 s, prefixed output to {@code System.out}/{@code System.err}. */
        public static Options defaults() {
            return new Options(Duration.ofSeconds(2), Duration.ofSeconds(5), true, System.out, System.err);
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
     * One failed child.
     *
     * @param index  the child's index
     * @param reason e.g. {@code "exit code 1"}, {@code "killed by signal 9 (SIGKILL)"},
     *               {@code "missed heartbeat for 3.0 s"}, {@code "timed out after 30 s"}
     */
    public record Failure(int index, String reason) {}

    /**
     * How the group ended.
     *
     * @param failures  failed children, the root cause first: the child that declared the failure
     *                  ({@link ChildRuntime#fail}), else the first failure detected
     * @param exitCodes each child's exit code by index (128+N for a death by signal N; -1 if it could not be reaped)
     */
    public record Outcome(List<Failure> failures, List<Integer> exitCodes) {
        public Outcome {
            failures = List.copyOf(failures);
            exitCodes = List.copyOf(exitCodes);
        }

        /** True when every child exited 0 in time. */
        public boolean ok() {
            return failures.isEmpty();
        }
    }

    private final int processCount;
    private final Options options;
    /** Set at construction or by {@link #watch}; read by the shutdown hook. */
    private volatile ControlBlock block;
    private final List<Child> children = new ArrayList<>();
    private final Semaphore exits = new Semaphore(0);
    private final List<Failure> failures = new ArrayList<>();
    private final Object lifecycle = new Object();
    private Thread shutdownHook;
    private boolean started;
    private volatile boolean closed;

    /** A supervisor for the group of {@code block}; the caller keeps owning the block. */
    public Supervisor(ControlBlock block, Options options) {
        this.block = Objects.requireNonNull(block, "block");
        this.processCount = block.processCount();
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * A supervisor for a group of up to {@code processCount} children whose block does not exist yet: children may
     * be {@linkplain #start started} first (they {@linkplain ChildRuntime#join(String, int, java.time.Duration)
     * wait} for the block), so that their start-up overlaps the block's creation; {@link #watch} names the block
     * before anything waits for them. Until then a failure or shutdown only kills them.
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
     * Starts one child JVM per element of {@code argsPerChild}, all at once (none waits for another). Child
     * {@code i} runs {@code mainClass} with {@code argsPerChild.get(i)} and is watched through slot {@code i}.
     *
     * @throws CoordinationException when a child cannot be started (those already started are killed)
     */
    public void start(String mainClass, List<List<String>> argsPerChild) {
        Objects.requireNonNull(mainClass, "mainClass");
        int n = argsPerChild.size();
        if (n < 1 || n > processCount) {
            throw new IllegalArgumentException("need 1 to " + processCount + " children for "
                    + (block != null ? "control block " + block.name() : "this group") + ", got " + n);
        }
        List<String> base = baseCommand();
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("supervisor is closed");
            }
            if (started) {
                throw new IllegalStateException("supervisor already started its children");
            }
            started = true;
            shutdownHook = Thread.ofPlatform().name("cudaipc4j-supervisor-shutdown").unstarted(this::onShutdown);
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            boolean inherit = !options.prefixOutput() && options.out() == System.out && options.err() == System.err;
            for (int i = 0; i < n; i++) {
                List<String> command = new ArrayList<>(base);
                command.add(mainClass);
                command.addAll(argsPerChild.get(i));
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
                    throw new CoordinationException("cannot start child " + i + " (" + command.getFirst() + "): "
                            + e.getMessage(), e);
                }
                Child child = new Child(i, process);
                children.add(child);
                closeQuietly(process.getOutputStream());
                if (!inherit) {
                    String prefix = options.prefixOutput() ? "[" + i + "] " : "";
                    child.pumps.add(pump(process.getInputStream(), options.out(), prefix, "out-" + i));
                    child.pumps.add(pump(process.getErrorStream(), options.err(), prefix, "err-" + i));
                }
                process.onExit().thenRun(exits::release);
            }
        }
    }

    /** The pids of the children, by index (empty before {@link #start}). */
    public List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        for (Child c : children) {
            pids.add(c.process.pid());
        }
        return Collections.unmodifiableList(pids);
    }

    /**
     * Waits for every child to exit (calling it again returns the same outcome). On the first failure (non-zero exit, death by signal, missed heartbeat) it
     * aborts the group, lets the others run for the grace period, then terminates them. Returns within
     * {@code timeout} plus the time to reap killed children; children still running at the deadline are killed
     * and fail with "timed out after ...".
     */
    public Outcome awaitAll(Duration timeout) {
        if (!started) {
            throw new IllegalStateException("awaitAll before start");
        }
        ControlBlock block = block();
        long now = System.nanoTime();
        long deadline = now + timeout.toNanos();
        long graceNanos = options.gracePeriod().toNanos();
        long heartbeatNanos = options.heartbeatTimeout().toNanos();
        long failedAt = now;
        int firstFailed = failures.isEmpty() ? -1 : failures.getFirst().index();
        long termSentAt = 0;
        boolean killSent = false;
        for (Child c : children) {
            c.lastChange = now;
        }
        while (true) {
            now = System.nanoTime();
            boolean running = false;
            for (Child c : children) {
                if (c.exitCode != null) {
                    continue;
                }
                if (!c.process.isAlive()) {
                    c.exitCode = c.process.exitValue();
                    if (c.exitCode != 0 && !c.failureRecorded) {
                        String reason = c.cause != null ? c.cause + " (" + describeExit(c.exitCode) + ")"
                                : describeExit(c.exitCode);
                        failures.add(new Failure(c.index, reason));
                        c.failureRecorded = true;
                        if (firstFailed < 0) {
                            firstFailed = c.index;
                            failedAt = now;
                            abortQuietly("process " + c.index + " failed (" + reason + ")");
                        }
                    }
                    continue;
                }
                running = true;
                if (c.failureRecorded) {
                    continue;
                }
                long hb = block.lastHeartbeatMillis(c.index);
                if (hb != c.lastHeartbeat) {
                    c.lastHeartbeat = hb;
                    c.lastChange = now;
                } else if (hb != 0 && now - c.lastChange > heartbeatNanos && !finishing(c.index)) {
                    String reason = "missed heartbeat for " + Barrier.format(Duration.ofNanos(now - c.lastChange));
                    failures.add(new Failure(c.index, reason));
                    c.failureRecorded = true;
                    kill(c);
                    if (firstFailed < 0) {
                        firstFailed = c.index;
                        failedAt = now;
                        abortQuietly("process " + c.index + " failed (" + reason + ")");
                    }
                }
            }
            if (!running) {
                break;
            }
            if (now - deadline >= 0) {
                String reason = "timed out after " + Barrier.format(timeout);
                abortQuietly(reason);
                for (Child c : children) {
                    if (c.exitCode == null && c.process.isAlive()) {
                        if (!c.failureRecorded) {
                            failures.add(new Failure(c.index, reason));
                            c.failureRecorded = true;
                        }
                        kill(c);
                    }
                }
                reapAll();
                break;
            }
            if (firstFailed >= 0 && termSentAt == 0 && now - failedAt >= graceNanos) {
                termSentAt = now;
                for (Child c : children) {
                    if (c.exitCode == null && c.process.isAlive() && c.cause == null) {
                        c.cause = "terminated after process " + firstFailed + " failed";
                        c.process.destroy();
                    }
                }
            }
            if (termSentAt != 0 && !killSent && now - termSentAt >= TERM_TO_KILL.toNanos()) {
                killSent = true;
                for (Child c : children) {
                    if (c.exitCode == null && c.process.isAlive()) {
                        kill(c);
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
                reapAll();
                throw new CoordinationException("interrupted while waiting for the children; all were killed");
            }
        }
        // The children's last lines come before whatever the caller prints about the outcome.
        joinPumps(OUTPUT_DRAIN);
        List<Integer> codes = new ArrayList<>();
        for (Child c : children) {
            codes.add(c.exitCode == null ? -1 : c.exitCode);
        }
        return new Outcome(rootCauseFirst(failures), codes);
    }

    /**
     * Waits until every child has {@linkplain ProcessStatus#RELEASED released} what it opened (status RELEASED or
     * DONE, or it exited 0), so the parent can free its exports while the children tear down and exit. Returns
     * false at once when a child fails (status FAILED, a non-zero exit, or an abort of the group) and at the
     * timeout; the caller should then {@link #awaitAll} before freeing anything.
     */
    public boolean awaitReleased(Duration timeout) {
        if (!started) {
            throw new IllegalStateException("awaitReleased before start");
        }
        ControlBlock block = block();
        long deadline = System.nanoTime() + timeout.toNanos();
        IdleStrategy idle = IdleStrategy.forLongWait();
        while (true) {
            boolean all = true;
            for (Child c : children) {
                ProcessStatus s = block.status(c.index);
                if (s == ProcessStatus.FAILED) {
                    return false;
                }
                if (s == ProcessStatus.RELEASED || s == ProcessStatus.DONE) {
                    continue;
                }
                if (!c.process.isAlive()) {
                    if (c.process.exitValue() != 0) {
                        return false;
                    }
                    continue;
                }
                all = false;
            }
            if (all) {
                return true;
            }
            if (block.isAborted() || System.nanoTime() - deadline >= 0) {
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

    /**
     * The command line of a fresh JVM like this one, up to the main class: the same java binary, this JVM's own
     * options (less debugger agents and archive writing), native access, and the class path. Children are started
     * with it; so are other helper JVMs (benchmarks), so that what is measured runs as the children do.
     */
    public static List<String> baseCommand() {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(inheritedJvmOptions(ProcessHandle.current().info().arguments().map(List::of).orElse(List.of())));
        String shmDir = System.getProperty(SharedSegment.DIR_PROPERTY);
        if (shmDir != null) {
            cmd.add("-D" + SharedSegment.DIR_PROPERTY + "=" + shmDir);
        }
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }

    private static String javaBinary() {
        String command = ProcessHandle.current().info().command().orElse(null);
        if (command != null) {
            String file = Path.of(command).getFileName().toString();
            if (file.equals("java") || file.equals("java.exe")) {
                return command;
            }
        }
        // Started by a custom launcher: use the running JDK's java.
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        if (Files.isExecutable(java)) {
            return java.toString();
        }
        throw new CoordinationException("cannot find the java binary to start children (looked at " + command
                + " and " + java + ")");
    }

    /**
     * The parent's JVM options that children inherit: {@code -D}, {@code -X}, {@code -XX} and assertion switches
     * found before the main class, {@code -jar} or {@code -m}; not debugger agents, archive-writing options, the
     * class or module path, or argument files.
     */
    static List<String> inheritedJvmOptions(List<String> parentArgs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < parentArgs.size(); i++) {
            String a = parentArgs.get(i);
            if (OPTIONS_WITH_VALUE.contains(a)) {
                i++;
                continue;
            }
            if (a.equals("-jar") || a.equals("-m") || a.equals("--module") || a.startsWith("--module=")
                    || !a.startsWith("-")) {
                break;
            }
            if (EXCLUDED_PREFIXES.stream().anyMatch(a::startsWith)) {
                continue;
            }
            if (a.startsWith("-D") || a.startsWith("-X") || a.matches("-(e|d)(s)?a(:.*)?")
                    || a.matches("-(enable|disable)(system)?assertions(:.*)?")) {
                out.add(a);
            }
        }
        return out;
    }

    private boolean finishing(int index) {
        ProcessStatus s = block().status(index);
        return s == ProcessStatus.DONE || s == ProcessStatus.FAILED || s == ProcessStatus.RELEASED;
    }

    private void abortQuietly(String reason) {
        ControlBlock block = this.block;
        if (block == null) {
            return; // children that wait for the block are killed; there is nobody to tell
        }
        try {
            block.abort(ControlBlock.PARENT, reason);
        } catch (RuntimeException e) {
            // The block is already unmapped (shutdown path); the children are being killed anyway.
        }
    }

    private static void kill(Child c) {
        c.process.descendants().forEach(ProcessHandle::destroyForcibly);
        c.process.destroyForcibly();
    }

    private void killAll() {
        for (Child c : children) {
            if (c.process.isAlive()) {
                kill(c);
            }
        }
    }

    /** After a kill: wait for the exits and record the codes; a child that cannot be reaped keeps null. */
    private void reapAll() {
        waitForExit(REAP_WAIT);
        for (Child c : children) {
            if (c.exitCode == null && !c.process.isAlive()) {
                c.exitCode = c.process.exitValue();
                if (c.exitCode != 0 && !c.failureRecorded) {
                    c.failureRecorded = true;
                    failures.add(new Failure(c.index, c.cause != null ? c.cause : describeExit(c.exitCode)));
                }
            }
        }
    }

    /** Waits (bounded: a grandchild may hold a pipe open) until the output of exited children is copied. */
    private void joinPumps(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Child c : children) {
            for (Thread t : c.pumps) {
                long left = deadline - System.nanoTime();
                try {
                    if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void waitForExit(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Child c : children) {
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !c.process.waitFor(left, TimeUnit.NANOSECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Shutdown hook: the parent JVM is going away (SIGINT, SIGTERM, exit) with the group still running. */
    private void onShutdown() {
        if (closed) {
            return;
        }
        abortQuietly("the parent is shutting down");
        for (Child c : children) {
            if (c.process.isAlive()) {
                c.process.destroy();
            }
        }
        waitForExit(TERM_TO_KILL);
        killAll();
        waitForExit(TERM_TO_KILL);
    }

    private static Thread pump(InputStream in, PrintStream to, String prefix, String name) {
        Charset cs = nativeCharset();
        return Thread.ofPlatform().daemon().name("cudaipc4j-" + name).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, cs))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (to) {
                        to.println(prefix + line);
                    }
                }
            } catch (IOException e) {
                // The child is gone; nothing more to copy.
            } finally {
                to.flush();
            }
        });
    }

    private static Charset nativeCharset() {
        try {
            return Charset.forName(System.getProperty("native.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }

    private static void closeQuietly(java.io.OutputStream s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // Nothing was written to the child's stdin.
        }
    }

    private static final class Child {
        final int index;
        final Process process;
        final List<Thread> pumps = new ArrayList<>(2);
        Integer exitCode;
        long lastHeartbeat;
        long lastChange;
        boolean failureRecorded;
        String cause;

        Child(int index, Process process) {
            this.index = index;
            this.process = process;
        }
    }
}
