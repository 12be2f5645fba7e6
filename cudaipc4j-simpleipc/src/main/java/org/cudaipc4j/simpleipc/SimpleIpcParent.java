package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.coord.Supervisor;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.ipc.DriverFiles;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.NoIpcDeviceException;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.Sizes;
import org.cudaipc4j.tool.UsageException;

/**
 * The parent of a simpleIPC run (the sample run with no argument).
 *
 * <p>Unlike the sample, nothing waits for what it does not need. The parent starts its children first (when their
 * number can be {@linkplain GroupGuess guessed} without the driver), then starts the driver and selects the devices
 * while the children's JVMs and drivers start; it publishes the device assignment, makes its contexts and
 * allocates while the children make theirs, then publishes the handles and the ready flag. At the end it frees its
 * buffers as soon as every child has closed its mappings, while the children tear down.
 */
public final class SimpleIpcParent {
    /** The sample's waiver message. */
    static final String NO_IPC_DEVICES = "No CUDA devices support IPC";
    final SimpleIpcOptions options;
    /** Human-readable output: stdout, or stderr when stdout carries JSON. */
    private final PrintStream out;
    final PhaseLog phases = new PhaseLog(SimpleIpcSettings.TRACE_PHASES.get());
    /**
     * Where to write the JSON report as well, from {@code CUDAIPC4J_REPORT}: lets a benchmark time the exact command
     * a user runs (no {@code --json} on its command line) and still get the phases.
     */
    final Path reportFile;
    /** The first line of the run: which backend, and why when chosen automatically. */
    private String backendLine;
    /**
     * Held (shared) while the parent makes its contexts and exports; the shutdown hook takes it whole, so that it
     * removes the driver's file after any export under way, and no export starts after it.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock exporting =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    private volatile boolean shuttingDown;
    /** {@code --timeout} from the start of {@link #run()}: every wait of the parent ends by it. */
    Deadline runDeadline;

    public SimpleIpcParent(SimpleIpcOptions options) {
        this.options = options;
        String report = SimpleIpcSettings.REPORT.get();
        this.reportFile = report == null || report.isBlank() ? null : Path.of(report);
        this.out = options.json() ? System.err : System.out;
    }

    /** Runs the whole program and returns the exit code. */
    public int run() {
        phases.mark("jvmStart", Clock.runStartMicros());
        phases.mark("main");
        runDeadline = Deadline.after(options.timeout(), "--timeout");
        RunReport report = new RunReport(options);
        int exit;
        try {
            exit = runGroup(report);
        } catch (NoIpcDeviceException e) {
            // One line on standard error, as every waived result: the sample's sentence and the backend's reason.
            String message = e.getMessage();
            String reason = message.startsWith(NO_IPC_DEVICES + ": ") ? message.substring(NO_IPC_DEVICES.length() + 2)
                    : message;
            System.err.println(Failures.waived(message));
            report.result = "waived";
            report.waivedBecause = reason;
            exit = ExitCodes.WAIVED;
        }
        phases.mark("exit");
        report.exitCode = exit;
        report.parentPhases = phases.marks();
        if (options.json()) {
            System.out.println(report.toJson());
        }
        if (reportFile != null) {
            try {
                Files.writeString(reportFile, report.toJson());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the run report to " + reportFile, e);
            }
        }
        return exit;
    }

    private int runGroup(RunReport report) {
        // The driver first, on its own thread; then the children, when their number can be told without the
        // driver: their JVM and driver start-up overlap the parent's. They wait for their block and assignment.
        startDriverInBackground();
        GroupGuess guess = GroupGuess.of(options);
        ChildGroup early = guess == null ? null : ChildGroup.start(this, guess.processes(), guess.backend());
        if (options.backend() != BackendKind.HOST) {
            // Linking the other driver functions' handles would compete with the spawn above; now it overlaps
            // the wait for the driver.
            DriverStartUp.prelinkInBackground();
        }
        // Housekeeping while the driver starts: segments of runs that were killed (ours has a fresh name).
        int reaped = SharedSegment.reapStale();
        if (reaped > 0) {
            out.printf("Removed %d shared-memory segment(s) left by runs that died%n", reaped);
        }
        try (Backend backend = chooseBackend()) {
            phases.mark("driver");
            report.backend = backend.name();
            report.simulated = backend.simulated();
            List<Integer> selected = selectDevices(backend);
            phases.mark("selected");
            int n = processCount(selected);
            report.devices = selected;
            report.processes = n;
            // Concatenation, not a format string: the first Formatter of a JVM costs milliseconds, here on the way
            // to the children's device assignment.
            out.println("Running " + n + " process" + (n == 1 ? "" : "es") + " on " + selected.size() + " "
                    + (backend.simulated() ? "simulated " : "") + "device" + (selected.size() == 1 ? "" : "s") + ": "
                    + Sizes.format(options.bytes()) + " per buffer, " + options.rounds() + " round"
                    + (options.rounds() == 1 ? "" : "s"));

            ChildGroup started = early;
            early = null;
            if (started != null && !guess.matches(Backends.kindOf(backend), n)) {
                started.dismissAndClose();
                started = null;
            }
            try (ChildGroup group = started != null ? started : ChildGroup.start(this, n, Backends.kindOf(backend))) {
                ControlBlock block = group.block;
                out.println("PP: lshmName = " + block.name());
                for (int p = 0; p < n; p++) {
                    int ordinal = selected.get(p / options.procsPerDevice());
                    SimpleIpcSlot.setDevice(block.slotData(p), backend.deviceUuid(ordinal), ordinal);
                }
                block.publishAssignment();
                phases.mark("assigned");
                return runAssigned(group, backend, selected, report);
            }
        } finally {
            if (early != null) {
                early.dismissAndClose();
            }
        }
    }

    /**
     * The devices the run uses, as {@code --devices} asks, after the backend line and the sample's selection
     * messages.
     *
     * @throws UsageException for a selection the backend refuses
     * @throws NoIpcDeviceException when a selected device cannot share memory as {@code --ipc} asks
     */
    private List<Integer> selectDevices(Backend backend) {
        // The sample's selection messages follow the backend line, and nothing is printed for a bad request.
        List<String> selectionLog = new ArrayList<>();
        List<Integer> selected;
        try {
            selected = backend.selectDevices(options.devices(), SimpleIpcOptions.MAX_DEVICES, selectionLog::add);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        } finally {
            if (!selectionLog.isEmpty()) {
                printBackendLine();
                selectionLog.forEach(out::println);
            }
        }
        printBackendLine();
        if (backend.simulated() && options.kernel() == org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill.SIMPLE) {
            out.println("Note: --kernel simple is for GPUs; simulated devices fill their buffers on the CPU");
        }
        for (int device : selected) {
            java.util.Optional<String> why = backend.unsupported(device, options.ipc());
            if (why.isPresent()) {
                throw new NoIpcDeviceException(NO_IPC_DEVICES + ": " + why.get());
            }
        }
        return selected;
    }

    /**
     * {@return the run's process count on {@code selected}}
     *
     * @throws UsageException when it exceeds what a control block holds, or {@code --inject-corruption} names none
     */
    private int processCount(List<Integer> selected) {
        int n = selected.size() * options.procsPerDevice();
        if (n > ControlBlock.MAX_PROCESSES) {
            throw new UsageException(selected.size() + " devices x " + options.procsPerDevice()
                    + " processes per device exceeds the limit of " + ControlBlock.MAX_PROCESSES + " processes"
                    + " (lower --procs-per-device, or choose fewer with --devices)");
        }
        if (options.corruptProcess() >= n) {
            throw new UsageException("--inject-corruption: there is no process " + options.corruptProcess()
                    + " in a run of " + n + " (0 to " + (n - 1) + ")");
        }
        return n;
    }

    /**
     * Starts the driver on a background thread, first thing. The first process of a run to call
     * {@code cuInit} pays much more than the next ones (docs/performance.md has the figures), and a child's
     * {@code cuInit} that starts meanwhile returns only when the parent's does:
     * the parent's is on every child's way. Device selection waits for it too.
     */
    private void startDriverInBackground() {
        if (options.backend() != BackendKind.HOST) {
            // Ended by a signal, this JVM exits with the driver still up, which leaves its /dev/shm file of this
            // process behind (seen after SIGTERM both at start-up and mid-run); on a normal exit the contexts are
            // gone first and this finds nothing. The file comes with the exports (only the exporting parent had one),
            // which may still be under way when the signal comes: the hook waits for them and stops the next.
            long self = ProcessHandle.current().pid();
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("cudaipc4j-driver-files").unstarted(() -> {
                try {
                    if (exporting.writeLock().tryLock(2, java.util.concurrent.TimeUnit.SECONDS)) {
                        shuttingDown = true;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                DriverFiles.removeOf(self);
            }));
            // One stream per process: one hardware work queue per context makes contexts much cheaper to create and
            // tear down. ./cudaipc4j puts the setting in the environment, and then nothing is set here. Started
            // otherwise (java -jar), it is set on the driver's thread, before the driver starts: that native call
            // links the FFM machinery (milliseconds before cuInit can start), which must not delay the
            // spawn too. Children get it in their environment (supervisorOptions).
            Cuda.initInBackground(DriverStartUp::applySingleStreamDefaults, () -> phases.mark("cuInit"));
        }
    }

    /** From the published assignment to the reaped children: prepare, export, publish, free, reap. */
    @SuppressWarnings("try") // the exports are freed early, inside their try block, once the children let go
    private int runAssigned(ChildGroup group, Backend backend, List<Integer> selected, RunReport report) {
        ControlBlock block = group.block;
        Supervisor supervisor = group.supervisor;
        Deadline deadline = runDeadline;
        int exit;
        try (Resources<Backend.Export> exports = new Resources<>()) {
            try {
                List<Integer> fds = new ArrayList<>();
                exporting.readLock().lock();
                try {
                    if (shuttingDown) {
                        throw new IllegalStateException("the parent is shutting down");
                    }
                    backend.prepareDevices(selected);
                    phases.mark("prepared");
                    for (int p = 0; p < block.processCount(); p++) {
                        MemorySegment slot = block.slotData(p);
                        Backend.Export export = exports.add(backend.export(SimpleIpcSlot.deviceOrdinal(slot),
                                options.bytes(), options.ipc()));
                        SimpleIpcSlot.setHandles(slot, export.memoryHandle(), export.eventHandle());
                        phases.note("exported" + p);
                        for (int fd : export.memoryFds()) {
                            fds.add(fd);
                        }
                    }
                } finally {
                    exporting.readLock().unlock();
                }
                if (group.fds != null) {
                    // The children have connected already (or will): each gets them now.
                    group.fds.offer(fds);
                }
                phases.mark("exported");
                block.publishReady();
            } catch (RuntimeException e) {
                // Tell the children before tearing down, so they stop waiting for the ready flag.
                block.abort(-1, "parent failed: " + Failures.oneLine(e));
                throw e;
            }
            // Free as soon as every child has closed its mappings: the parent's teardown (frees, context release)
            // then overlaps the children's. After a failure, wait for the children to be gone first.
            if (supervisor.awaitReleased(deadline)) {
                // Every child has joined: the block's name is needed no more, and a parent killed from here on
                // leaves no file of it.
                block.removeName();
                phases.mark("released");
                exports.close();
                backend.close();
                phases.mark("freed");
            }
            Supervisor.Outcome outcome = supervisor.awaitAll(deadline);
            phases.mark("childrenDone");
            for (Supervisor.Failure f : outcome.failures()) {
                out.printf("Process %d failed (%s)%n", f.index(), f.reason());
                report.failures.add(new RunReport.FailureEntry(f.index(), f.reason()));
            }
            exit = outcome.ok() ? ExitCodes.OK : ExitCodes.FAILURE;
            group.passed = outcome.ok();
            // The run's limit passed and a process was still waiting: that is why the run failed, whatever each
            // process's line says it was waiting for.
            boolean timedOut = !outcome.ok() && deadline.hasPassed() && timedOut(outcome, block);
            printSummary(outcome, block.processCount(), selected.size(), backend.simulated(),
                    timedOut ? deadline : null);
        }
        phases.mark("teardown");
        report.childPhases = group.phaseFiles.read();
        report.result = exit == ExitCodes.OK ? "passed" : "failed";
        return exit;
    }

    /**
     * Whether a process timed out: the parent waiting for one ("timed out ..." as its failure), or a child that
     * timed out itself (exit code 1 as its failure; its timeout the group's first abort).
     */
    static boolean timedOut(Supervisor.Outcome outcome, ControlBlock block) {
        for (Supervisor.Failure f : outcome.failures()) {
            if (f.reason().startsWith("timed out")) {
                return true;
            }
        }
        Optional<ControlBlock.Abort> abort = block.abortState();
        return abort.isPresent() && abort.get().reason().contains("timed out");
    }

    /**
     * The run's last line: what passed or how many failed (and the run's timeout, when it is the cause), and the
     * time since the run started.
     */
    private void printSummary(Supervisor.Outcome outcome, int processes, int devices, boolean simulated,
            Deadline timedOut) {
        long start = Clock.runStartMicros();
        String took = start > 0 ? ", " + Clock.seconds(Clock.micros() - start) + " s" : "";
        String where = processes + " process" + (processes == 1 ? "" : "es") + " on " + devices + " "
                + (simulated ? "simulated " : "") + "device" + (devices == 1 ? "" : "s");
        if (outcome.ok()) {
            out.println("Passed: " + where + ", " + processes + " x " + Sizes.format(options.bytes()) + " verified, "
                    + options.rounds() + " round" + (options.rounds() == 1 ? "" : "s") + took);
        } else {
            out.println("Failed: " + (timedOut == null ? "" : "the run " + timedOut.timedOut("its processes") + ": ")
                    + outcome.failures().size() + " of " + where + took);
        }
    }

    /** Prints the backend line once, before anything else the run prints. */
    private void printBackendLine() {
        if (backendLine != null) {
            out.println(backendLine);
            backendLine = null;
        }
    }

    /** "1 device" or "N devices", of the simulated ones. */
    private String simulated() {
        int n = options.simulatedDevices();
        return n + (n == 1 ? " device" : " devices");
    }

    private Backend chooseBackend() {
        BackendKind kind = options.backend();
        if (kind == BackendKind.HOST) {
            backendLine = "Backend: host (" + simulated() + " simulated in host shared memory)";
            return Backends.create(BackendKind.HOST, options);
        }
        Backend cuda = null;
        try {
            cuda = Backends.create(BackendKind.CUDA, options);
            if (kind == BackendKind.CUDA) {
                backendLine = "Backend: cuda";
                return cuda;
            }
            // auto: probe quietly; the real selection below prints the sample's messages.
            cuda.selectDevices(options.devices(), SimpleIpcOptions.MAX_DEVICES, line -> {});
            backendLine = "Backend: cuda (auto: an IPC-capable GPU was found)";
            return cuda;
        } catch (IllegalArgumentException e) {
            // A requested device that does not exist is the user's mistake, whichever backend would run it.
            if (cuda != null) {
                cuda.close();
            }
            throw new UsageException(e.getMessage());
        } catch (NoIpcDeviceException e) {
            if (cuda != null) {
                cuda.close();
            }
            if (kind == BackendKind.CUDA) {
                throw e;
            }
            String why = Failures.oneLine(e); // the sample's sentence, "No CUDA devices support IPC: ...", mid-line
            backendLine = "Backend: host (auto: " + (why.isEmpty() ? why
                    : Character.toLowerCase(why.charAt(0)) + why.substring(1)) + "; " + simulated()
                    + " simulated in host shared memory)";
            return Backends.create(BackendKind.HOST, options);
        } catch (RuntimeException e) {
            if (cuda != null) {
                cuda.close();
            }
            throw e;
        }
    }

    Supervisor.Options supervisorOptions() {
        Supervisor.Options d = Supervisor.Options.defaults();
        return new Supervisor.Options(d.gracePeriod(), d.heartbeatTimeout(), false, out, options.json() ? System.err : d.err(),
                options.backend() != BackendKind.HOST ? DriverStartUp.singleStreamDefaultsForChildren() : Map.of());
    }
}
