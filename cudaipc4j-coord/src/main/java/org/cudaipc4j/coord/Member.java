package org.cudaipc4j.coord;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A member of a supervised group: a process the {@link Supervisor} started ({@code process} set) or adopted. */
final class Member {
    final int index;
    final Process process;
    final ProcessHandle handle;
    final List<OutputPump> pumps = new ArrayList<>(2);
    /** Set once its exit is recorded. */
    Integer exitCode;
    /** Its place in the group's events once its exit was reported ({@link ExitOrder}), else -1. */
    long exitRank = -1;
    /** Its place when the supervisor first signalled it, else -1. */
    long signalledRank = -1;
    boolean failureRecorded;
    /** Why the supervisor ended it, when it did ("terminated after process 1 failed"). */
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
     * True while the JVM has not reaped a member started here, whose exit code it then does not know yet; always
     * false for an adopted member, whose code is never known.
     */
    boolean awaitsReaping() {
        return process != null && process.isAlive();
    }

    /**
     * Completes once {@link #isAlive()} is false. For a process started here that is the {@link Process}'s own
     * future: its handle's can complete a moment before the {@code Process} knows its exit code.
     */
    CompletableFuture<?> onExit() {
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
            return describeExitCode(process.exitValue());
        }
        return "exited with status " + block.status(index) + " (not started here: exit code unknown)";
    }

    /** SIGKILL to it and its descendants. */
    void kill() {
        handle.descendants().forEach(ProcessHandle::destroyForcibly);
        handle.destroyForcibly();
    }

    /** "exit code 1", or "killed by signal 9 (SIGKILL)" for 128+N ({@link Supervisor#describeExit}). */
    static String describeExitCode(int code) {
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
}
