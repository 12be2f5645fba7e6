package org.cudaipc4j.simpleipc;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.cudaipc4j.coord.Barrier;
import org.cudaipc4j.coord.ChildRuntime;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.ParentWatch;
import org.cudaipc4j.coord.ProcessStatus;
import org.cudaipc4j.coord.StarterInput;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.cuda.ipc.DriverFiles;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.Backend.Attachment;
import org.cudaipc4j.simpleipc.backend.Backend.PeerBuffer;
import org.cudaipc4j.simpleipc.backend.Backend.PeerEvent;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.simpleipc.cuda.CudaAttachment;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.LineAtomicOutput;
import org.cudaipc4j.tool.ProcessExit;

/**
 * Child process {@code id} of a simpleIPC run (the sample run with one integer argument). Started by the parent
 * through the supervisor as a fresh JVM; kept free of the CLI and JSON libraries so it starts fast.
 *
 * <p>Argument: its index; its settings, then the control block's name, come down its standard input (see
 * {@link ChildSettings}).
 *
 * <p>It may be started before the parent has chosen its device: it joins the group and starts the driver (at the
 * same time, on two threads), waits for its device assignment (or leaves quietly, exit 0, when the parent dismisses
 * the group), attaches to its device (context, stream, kernel) while the parent still allocates, waits for the
 * ready flag, opens every process's buffer and event, runs the rotation with a barrier after each step, and
 * verifies its own buffer: every byte must be {@code (id + 1) % n}, written by the next sibling in the last step.
 * Then it closes what it opened and marks itself RELEASED, so the parent frees while this process tears down.
 * Exit 0 only when the verification holds.
 */
public final class SimpleIpcChild {
    /** {@link #run}'s result when the parent dismissed the group before assigning devices. */
    private static final int DISMISSED = -1;
    /** Steps between progress markers; see the step loop. */
    private static final int RUN_AHEAD = 16;

    private SimpleIpcChild() {}

    public static void main(String[] args) {
        LineAtomicOutput.install();
        PhaseLog phases = new PhaseLog();
        phases.mark("jvmStart", Clock.processStartMicros());
        phases.mark("main");
        StarterInput input = StarterInput.standardInput();
        ChildSettings settings = settingsOrExit(args, input);
        if (settings.backend() == SimpleIpcOptions.BackendKind.CUDA) {
            DriverStartUp.applySingleStreamDefaults(); // see SimpleIpcParent
            DriverStartUp.prelinkInBackground();
        }

        // Joining the group (shared memory, checks of the parent) and starting the driver do not depend on each
        // other: join on a helper thread while this thread, which will own the CUDA context, starts the driver.
        // The parent may still be creating the block (it starts its children first): the join waits for it.
        // With --ipc vmm|pool the same thread then connects to the parent's descriptor socket and asks for the
        // descriptors, which come once the parent has exported: none of that waits on the way to the first step.
        CompletableFuture<ChildRuntime> joining = new CompletableFuture<>();
        CompletableFuture<FdDistribution.Request> fdRequest = new CompletableFuture<>();
        startJoining(settings, input, phases, joining, fdRequest);

        int exit = runInGroup(settings, joining, fdRequest, phases);
        // A request that was never answered (a dismissed group, a failure before the buffers) closes its connection
        // (closing is idempotent).
        if (fdRequest.isDone() && !fdRequest.isCompletedExceptionally()) {
            fdRequest.join().close();
        }
        if (exit == DISMISSED) {
            // Started ahead of the device selection for a group that turned out otherwise: nothing to report.
            ProcessExit.exit(0, settings.quietExit());
        }
        phases.mark("exit");
        if (settings.phaseFile() != null && !ParentWatch.gone(input.starter())) {
            try {
                phases.writeTo(settings.phaseFile());
            } catch (UncheckedIOException e) {
                if (!ParentWatch.gone(input.starter())) {
                    throw e;
                } // else a sibling removed the dead parent's folder meanwhile: nobody reads the log
            }
        }
        // Looked at again after the write: a parent that died meanwhile left its folder to its children, and a
        // sibling's sweep may have come before this log.
        if (ParentWatch.gone(input.starter())) {
            DeadParent.removeWhatItNamed(input.starter());
        }
        ProcessExit.exit(exit, settings.quietExit());
    }

    /**
     * The child's settings from the parent's pipe, checked against its argument. Settings that are not the
     * parent's, or a bad argument, end the process with the usage (exit 64); a parent that closed the pipe or is
     * gone first, with exit 1.
     */
    private static ChildSettings settingsOrExit(String[] args, StarterInput input) {
        try {
            // Written by the parent as it starts the child, so waited for while the parent lives.
            ChildSettings settings = input.next(ChildSettings.Frame.CODEC, "the child's settings", null);
            settings.checkArguments(args);
            return settings;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            if (!e.getMessage().equals(ChildSettings.USAGE)) {
                System.err.println(ChildSettings.USAGE);
            }
            ProcessExit.exit(ExitCodes.USAGE);
            throw e; // not reached
        } catch (CoordinationException e) {
            System.err.println("cudaipc4j: simpleIPC child: " + e.getMessage());
            DeadParent.removeWhatItNamed(input.starter());
            ProcessExit.exit(1);
            throw e; // not reached
        }
    }

    /**
     * Waits for the block's name, joins the group on a thread of its own, then (with {@code --ipc vmm|pool}) asks
     * the parent's socket for the descriptors; completes {@code joining} and {@code fdRequest}, or both
     * exceptionally.
     */
    private static void startJoining(ChildSettings settings, StarterInput input, PhaseLog phases,
            CompletableFuture<ChildRuntime> joining, CompletableFuture<FdDistribution.Request> fdRequest) {
        Thread.ofPlatform().name("cudaipc4j-join").start(new Join(settings, input, phases, joining, fdRequest));
    }

    /**
     * The join thread's work (see {@link #startJoining}), and the block's name it waits for. A class rather than
     * lambdas: the child makes it on its way to its first step, where each lambda of its own costs it milliseconds of
     * linking (the start-up cache is trained on a parent).
     */
    private record Join(ChildSettings settings, StarterInput input, PhaseLog phases,
            CompletableFuture<ChildRuntime> joining, CompletableFuture<FdDistribution.Request> fdRequest)
            implements Runnable, Supplier<String> {
        @Override
        public void run() {
            int id = settings.id();
            try {
                joining.complete(ChildRuntime.join(this, SimpleIpcSlot.LAYOUT, id, settings.run().timeout()));
                phases.mark("joined");
            } catch (Throwable t) {
                joining.completeExceptionally(t);
                fdRequest.completeExceptionally(t);
                return;
            }
            if (settings.socket() != null) {
                try {
                    fdRequest.complete(FdDistribution.request(settings.socket(), id, settings.run().timeout()));
                } catch (Throwable t) {
                    fdRequest.completeExceptionally(t);
                }
            }
        }

        /** The control block's name, once the parent sends it. */
        @Override
        public String get() {
            return input.next(ChildSettings.BlockName.CODEC, "the control block's name",
                    Deadline.after(settings.run().timeout(), "--timeout")).name();
        }
    }

    /** Starts the driver beside the join, runs the child's part in the group and returns its exit code. */
    private static int runInGroup(ChildSettings settings, CompletableFuture<ChildRuntime> joining,
            CompletableFuture<FdDistribution.Request> fdRequest, PhaseLog phases) {
        int exit;
        int id = settings.id();
        try (Backend backend = Backends.create(settings.backend(), settings.run())) {
            RuntimeException driverFailure = null;
            try {
                backend.startDriver();
                phases.mark("driver");
            } catch (RuntimeException e) {
                driverFailure = e; // reported once the group is joined, so the siblings hear of it
            }
            try (ChildRuntime runtime = awaitJoin(joining)) {
                SimpleIpcSlot.releaseCountersOnAbort(runtime.block());
                runtime.onParentGone(TempLeftovers::sweepPhaseFolders); // the watchdog reaps the shared memory
                if (settings.backend() == SimpleIpcOptions.BackendKind.CUDA) {
                    // Killed, the parent leaves the driver's /dev/shm files, and this process halts without the
                    // driver's at-exit handler: remove both (the names carry the pid).
                    runtime.onParentGone(() -> {
                        DriverFiles.removeOf(runtime.parentPid());
                        DriverFiles.removeOf(ProcessHandle.current().pid());
                    });
                }
                try {
                    if (driverFailure != null) {
                        throw driverFailure;
                    }
                    exit = run(runtime, backend, settings, fdRequest, phases);
                } catch (RuntimeException | Error e) {
                    reportFailure(runtime, e);
                    exit = 1;
                }
                if (exit == 1) {
                    runtime.fail("verification failed");
                }
            }
        } catch (RuntimeException e) {
            // Could not join the group at all (bad segment, parent gone), or cleanup failed.
            System.out.printf("Process %d: %s%n", id, Failures.oneLine(e));
            exit = 1;
        }
        return exit;
    }

    /** What the join thread produced, or its failure rethrown as it was. */
    private static <T> T awaitJoin(CompletableFuture<T> joining) {
        try {
            return joining.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private static int run(ChildRuntime runtime, Backend backend, ChildSettings settings,
            CompletableFuture<FdDistribution.Request> fdRequest, PhaseLog phases) {
        Duration timeout = settings.run().timeout();
        ControlBlock block = runtime.block();
        int id = runtime.index();
        if (!block.awaitAssignment(timeout)) {
            return DISMISSED;
        }
        phases.mark("assigned");
        System.out.println("CP: lshmName = " + block.name());
        MemorySegment slot = block.slotData(id);
        int device = SimpleIpcSlot.deviceOrdinal(slot);
        // Concatenation, not a format string: the first Formatter of a JVM costs milliseconds, here before the
        // context is made.
        System.out.println("Process " + id + ": Starting on device " + device + "...");

        try (Attachment attachment = backend.attach(SimpleIpcSlot.deviceUuid(slot))) {
            int exit;
            try {
                exit = work(runtime, attachment, settings, fdRequest, phases);
            } catch (RuntimeException | Error e) {
                // This stream may hold work that waits for a record a dead sibling never ran; closing the context
                // would wait for it (for seconds). Report, then end now: the kernel reclaims the rest.
                abandon(runtime, e);
                throw e;
            }
            // This process ends next: leaving the device context to its exit ends it sooner than releasing it
            // first, and the parent waits for that end (docs/performance.md).
            attachment.closeBeforeExit();
            return exit;
        } finally {
            phases.mark("closed");
        }
    }

    /** The group's failure, reported, then the end of the process without a device teardown. */
    private static void abandon(ChildRuntime runtime, Throwable e) {
        reportFailure(runtime, e);
        // _exit skips the driver's at-exit handler, which would remove this process's /dev/shm files.
        DriverFiles.removeOf(ProcessHandle.current().pid());
        ProcessExit.abandon(1);
    }

    /**
     * Marks this process FAILED, aborts the group with the reason and prints it (with a stack trace on debug). A
     * failure that comes of the parent's death (a wait that saw it before the watchdog did) is said as the watchdog
     * says it, in one line on standard error, with its clean-up ({@link ChildRuntime#leaveIfParentGone}).
     */
    private static void reportFailure(ChildRuntime runtime, Throwable e) {
        String reason = Failures.oneLine(e);
        boolean parentGone = runtime.leaveIfParentGone();
        runtime.fail(reason);
        if (!parentGone) {
            System.out.printf("Process %d: %s%n", runtime.index(), reason);
        }
        if (Failures.debug()) {
            e.printStackTrace();
        }
    }

    /** From the attachment to the verification and the release of what was opened. */
    private static int work(ChildRuntime runtime, Attachment attachment, ChildSettings settings,
            CompletableFuture<FdDistribution.Request> fdRequest, PhaseLog phases) {
        phases.mark("attached");
        runtime.block().awaitReady(settings.run().timeout(), "handles");
        phases.mark("ready");
        Peers peers = openPeers(runtime.block(), attachment, settings, fdRequest);
        phases.mark("opened");
        Barrier barrier = runtime.block().barrier(runtime.index(), settings.run().timeout());
        rotate(runtime, attachment, settings, peers, barrier, phases);
        return verifyAndRelease(runtime, attachment, settings, peers, barrier, phases);
    }

    /** Every process's buffer and, with {@code --sync events}, event, in slot order; the attachment owns them. */
    private record Peers(List<PeerBuffer> buffers, List<PeerEvent> events) {}

    /** Opens every process's buffer (and event, or the counters) that the parent published in the block. */
    @SuppressWarnings("try") // the request is only closed: its message is what is used
    private static Peers openPeers(ControlBlock block, Attachment attachment, ChildSettings settings,
            CompletableFuture<FdDistribution.Request> fdRequest) {
        long bytes = settings.run().bytes();
        Duration timeout = settings.run().timeout();
        int n = block.processCount();
        // The attachment owns what it opens and closes it before itself.
        List<PeerBuffer> buffers = new ArrayList<>(n);
        List<PeerEvent> events = new ArrayList<>(n);
        boolean counters = settings.run().counters();
        if (counters) {
            attachment.useCounters(block.segment().memory(), SimpleIpcSlot.counterOffsets(block));
        }
        // With --ipc vmm|pool, the memory's file descriptors come over the group's socket, one per process in slot
        // order; they are closed once the buffers are open (the mappings hold their own references).
        FdDistribution.Request request = settings.socket() == null ? null : awaitJoin(fdRequest);
        try (FdDistribution.Request asked = request;
             FdMessage received = request == null ? null : request.receive(timeout)) {
            if (received != null && received.fds().size() != n) {
                throw new BackendException("expected " + n + " file descriptors from the parent, got "
                        + received.fds().size());
            }
            for (int p = 0; p < n; p++) {
                MemorySegment slot = block.slotData(p);
                int[] fds = received == null ? new int[0] : new int[] {received.fds().get(p).value()};
                buffers.add(attachment.openBuffer(SimpleIpcSlot.memoryHandle(slot), fds, bytes));
                if (!counters) {
                    events.add(attachment.openEvent(SimpleIpcSlot.eventHandle(slot)));
                }
            }
        }
        return new Peers(buffers, events);
    }

    /** The sample's rotation: each step fills the buffer this process owns the turn of, then a barrier. */
    private static void rotate(ChildRuntime runtime, Attachment attachment, ChildSettings settings, Peers peers,
            Barrier barrier, PhaseLog phases) {
        int rounds = settings.run().rounds();
        int corrupt = settings.run().corruptProcess();
        boolean counters = settings.run().counters();
        List<PeerBuffer> buffers = peers.buffers();
        List<PeerEvent> events = peers.events();
        ControlBlock block = runtime.block();
        int id = runtime.index();
        int n = block.processCount();
        long steps = (long) n * rounds;
        // Buffer b's previous writer is always the next process, (id + 1) % n. Alone in the group, that is this
        // process on this stream: stream order already puts each step after the last, and the waits and records
        // would only cost GPU time.
        boolean alone = n == 1;
        StepTimes times = new StepTimes();
        // Process 0's "Step N done" lines, written in one call per marker interval rather than one per step (a
        // write(2) per line cost more host time than the GPU spends on a small step).
        StringBuilder stepLines = id == 0 ? new StringBuilder(32 * RUN_AHEAD) : null;
        ArrayDeque<Long> markers = new ArrayDeque<>();
        runtime.setStatus(ProcessStatus.RUNNING); // what a timeout's message names for this process from now on
        try {
            for (long step = 0; step < steps; step++) {
                if (step % RUN_AHEAD == 0) {
                    keepUpWithTheDevice(attachment, barrier, markers, stepLines, times);
                }
                int b = (int) ((step + id) % n);
                boolean last = step == steps - 1;
                byte value = (byte) (last && corrupt == id ? id + 1 : id);
                long t0 = System.nanoTime();
                long t1 = t0; // alone, no wait is made and none is counted
                // Buffer b was written once in each earlier step: wait for the last of those writes to be done.
                if (!alone) {
                    awaitWrites(attachment, counters, events, b, (int) step);
                    t1 = System.nanoTime();
                }
                attachment.fill(buffers.get(b), value);
                long t2 = System.nanoTime();
                if (!alone) {
                    signalWrite(attachment, counters, events, b, (int) step + 1);
                }
                long t3 = System.nanoTime();
                // No sibling may re-record an event before every waiter has enqueued its wait on it.
                barrier.await();
                times.step(t0, t1, t2, t3, System.nanoTime());
                if (stepLines != null) {
                    stepLines.append("Step ").append(step).append(" done\n");
                }
            }
        } finally {
            writeStepLines(stepLines);
        }
        phases.mark("steps");
        times.report(phases);
    }

    /**
     * Writes the step lines so far and adds a marker; with two markers outstanding, waits for the older. Markers
     * bound how far this process runs ahead of its device (between RUN_AHEAD and 2 * RUN_AHEAD steps): unbounded, it
     * would fill the device's queue and block inside the driver, where it cannot see an abort, and a sibling that
     * dies leaves the device waiting forever for that sibling's records.
     */
    private static void keepUpWithTheDevice(Attachment attachment, Barrier barrier, ArrayDeque<Long> markers,
            StringBuilder stepLines, StepTimes times) {
        long o0 = System.nanoTime();
        writeStepLines(stepLines);
        long o1 = System.nanoTime();
        times.outputNs += o1 - o0;
        markers.add(attachment.mark());
        if (markers.size() > 2) {
            long oldest = markers.removeFirst();
            barrier.awaitCondition(() -> attachment.reached(oldest), "the device to catch up");
        }
        times.deviceWaitNs += System.nanoTime() - o1;
    }

    /** After the last step: checks this process's own buffer and, when it holds, gives back what was opened. */
    private static int verifyAndRelease(ChildRuntime runtime, Attachment attachment, ChildSettings settings,
            Peers peers, Barrier barrier, PhaseLog phases) {
        long bytes = settings.run().bytes();
        boolean verifyOnDevice = settings.run().verifyOnDevice();
        boolean counters = settings.run().counters();
        ControlBlock block = runtime.block();
        int id = runtime.index();
        int n = block.processCount();
        if (n > 1) {
            awaitWrites(attachment, counters, peers.events(), id, n * settings.run().rounds());
            if (!counters) {
                // The copy or count below ends in a synchronisation of the stream, inside the driver, where no abort
                // is seen: with events, a sibling killed before its last record ran would hold it there for good.
                // Wait here instead, where an abort ends the wait (counters need not: an abort releases their waits).
                long lastWrites = attachment.mark();
                barrier.awaitCondition(() -> attachment.reached(lastWrites), "the last writes to its buffer");
            }
        }
        byte expected = (byte) ((id + 1) % n);
        Verification v = verify(attachment, peers.buffers().get(id), expected, verifyOnDevice, id, phases);
        if (!v.ok()) {
            String difference = String.format("at offset %d: expected %d, got %d (%d of %d bytes wrong)",
                    v.firstBadOffset(), Byte.toUnsignedInt(expected), v.actual(), v.badBytes(), bytes);
            Optional<ControlBlock.Abort> abort = block.abortState();
            if (counters && abort.isPresent()) {
                // The abort may have released this stream's counter wait before the last write (events are not
                // released): the buffer may be incomplete rather than wrong.
                throw new CoordinationException("verification abandoned (" + difference + "): the group was "
                        + abort.get().describe() + ", which may have cut short the wait for this buffer's last write");
            }
            System.out.println("Process " + id + ": Verification mismatch " + difference);
            return 1;
        }
        // Done with the parent's buffers and events: say so, so the parent frees them while this process
        // tears down its stream and context.
        attachment.releaseOpened();
        runtime.setStatus(ProcessStatus.RELEASED);
        phases.mark("released");
        System.out.println("Process " + id + " complete!");
        return 0;
    }

    /**
     * Makes the stream wait until buffer {@code b} has been written {@code writes} times: on its counter, or on its
     * event ({@code --sync events}), last recorded by that write.
     */
    private static void awaitWrites(Attachment attachment, boolean counters, List<PeerEvent> events, int b,
            int writes) {
        if (counters) {
            attachment.waitCounter(b, writes);
        } else {
            attachment.streamWait(events.get(b));
        }
    }

    /**
     * Tells the next writer of buffer {@code b}, once the stream gets here, that it was written {@code writes}
     * times.
     */
    private static void signalWrite(Attachment attachment, boolean counters, List<PeerEvent> events, int b,
            int writes) {
        if (counters) {
            attachment.writeCounter(b, writes);
        } else {
            attachment.record(events.get(b));
        }
    }

    /** Writes the buffered step lines in one call (whole lines, so siblings' lines cannot land inside). */
    private static void writeStepLines(StringBuilder lines) {
        if (lines != null && !lines.isEmpty()) {
            System.out.print(lines);
            lines.setLength(0);
        }
    }

    /**
     * Checks that every byte of the process's own buffer is {@code expected}: on the GPU when asked and possible
     * (a count of wrong bytes; only a wrong buffer is copied back, for the report), else through a copy to host
     * memory.
     */
    private static Verification verify(Attachment attachment, PeerBuffer own, byte expected, boolean onDevice,
            int id, PhaseLog phases) {
        if (onDevice && attachment instanceof CudaAttachment gpu) {
            System.out.println("Process " + id + ": verifying...");
            long wrong = gpu.countMismatchesOnDevice(own, expected).count();
            phases.mark("verified");
            if (wrong == 0) {
                return new Verification(0, -1, 0);
            }
            return Verification.check(attachment.copyToHost(own), expected);
        }
        MemorySegment host = attachment.copyToHost(own);
        phases.mark("copied");
        System.out.println("Process " + id + ": verifying...");
        Verification v = Verification.check(host, expected);
        phases.mark("verified");
        return v;
    }
}
