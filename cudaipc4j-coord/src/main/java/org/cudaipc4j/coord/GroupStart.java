package org.cudaipc4j.coord;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.cudaipc4j.base.Closing;

/**
 * How a {@link Supervisor}'s members come and go outside its waits: started from command lines or adopted, each
 * added to the {@link GroupWatch} right after its start; killed by {@link #close()}, or by the shutdown hook when
 * this JVM goes away with the group still running. Thread-safe: starts, {@link #close()} and the hook are ordered
 * by one lock, so that every member a start makes is seen by whichever ends the group.
 */
final class GroupStart {
    private final int processCount;
    private final Supervisor.Options options;
    private final GroupWatch group;
    /** The group's block when there is one (null before it is named, or for a group without one). */
    private final Supplier<ControlBlock> block;
    private final Object lifecycle = new Object();
    /** Set under {@link #lifecycle} once the shutdown hook runs: from then on no member starts. */
    private boolean shuttingDown;
    private Thread shutdownHook;
    private volatile boolean closed;
    /** Set once {@link #close} has ended every member: the shutdown hook then has nothing left to do. */
    private volatile boolean closeFinished;

    GroupStart(int processCount, Supervisor.Options options, GroupWatch group, Supplier<ControlBlock> block) {
        this.processCount = processCount;
        this.options = options;
        this.group = group;
        this.block = block;
    }

    /** Starts one member per command (see {@link Supervisor#start(List)}); their inputs when {@code keepInput}. */
    List<OutputStream> launch(List<MemberCommand> commands, boolean keepInput) {
        int n = commands.size();
        if (n < 1 || n > processCount) {
            ControlBlock b = block.get();
            throw new IllegalArgumentException("need 1 to " + processCount + " processes for "
                    + (b != null ? "control block " + b.name() : "this group") + ", got " + n);
        }
        List<OutputStream> inputs = new ArrayList<>(n);
        synchronized (lifecycle) {
            beginWatching();
            boolean inherit = !options.prefixOutput() && options.out() == System.out && options.err() == System.err;
            for (int i = 0; i < n; i++) {
                MemberCommand command = commands.get(i);
                Process process;
                try {
                    process = command.processBuilder(options, inherit).start();
                } catch (IOException e) {
                    for (OutputStream input : inputs) {
                        Closing.closeQuietly(input);
                    }
                    group.killAll();
                    group.waitForExit(GroupWatch.REAP_WAIT);
                    throw new CoordinationException("cannot start process " + i + " (" + command.command().getFirst()
                            + "): " + e.getMessage(), e);
                }
                Member member = new Member(i, process, process.toHandle());
                group.add(member);
                if (keepInput) {
                    inputs.add(process.getOutputStream());
                } else {
                    Closing.closeQuietly(process.getOutputStream()); // nothing is written to a member's stdin
                }
                command.pumpOutput(process, i, options, inherit, member.pumps);
            }
        }
        return Collections.unmodifiableList(inputs);
    }

    /** Watches a process started elsewhere as member {@code index} (see {@link Supervisor#adopt}). */
    void adopt(int index, ProcessHandle process) {
        synchronized (lifecycle) {
            for (Member m : group.members()) {
                if (m.index == index) {
                    throw new IllegalStateException("member " + index + " is already watched (pid " + m.handle.pid()
                            + ")");
                }
            }
            beginWatching();
            group.add(new Member(index, null, process));
        }
    }

    private void beginWatching() {
        if (closed) {
            throw new IllegalStateException("supervisor is closed");
        }
        if (shuttingDown) {
            throw new CoordinationException("this JVM is shutting down: no process of the group starts");
        }
        if (shutdownHook == null) {
            shutdownHook = Thread.ofPlatform().name("cudaipc4j-supervisor-shutdown").unstarted(this::onShutdown);
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        } else if (group.members().stream().anyMatch(m -> m.process != null)) {
            throw new IllegalStateException("supervisor already started its processes");
        }
    }

    /** Kills whatever still runs (and their descendants) and waits briefly for them; false when already closed. */
    boolean close() {
        synchronized (lifecycle) {
            if (closed) {
                return false;
            }
            closed = true;
        }
        group.killAll();
        group.waitForExit(GroupWatch.REAP_WAIT);
        closeFinished = true;
        group.joinPumps(GroupWatch.OUTPUT_DRAIN);
        group.close();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to; the members are ended, so it does nothing.
            }
        }
        return true;
    }

    /** Shutdown hook: this JVM is going away (SIGINT, SIGTERM, exit) with the group still running. */
    void onShutdown() {
        synchronized (lifecycle) { // a start in progress ends first, so every member it started is seen here
            if (closeFinished) {
                return;
            }
            // A close under way on another thread may not get to its kills before the JVM halts: killed here too.
            shuttingDown = true;
        }
        GroupWatch.abortQuietly(block.get(), "the parent is shutting down");
        for (Member m : group.members()) {
            if (m.isAlive()) {
                m.handle.destroy();
            }
        }
        group.waitForExit(GroupWatch.TERM_TO_KILL);
        group.killAll();
        group.waitForExit(GroupWatch.TERM_TO_KILL);
    }
}
