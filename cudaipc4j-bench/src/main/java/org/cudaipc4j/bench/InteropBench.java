package org.cudaipc4j.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.torch.TorchLeases;

/**
 * The interop benchmark's entry point: this process, fresh, as the reader of what another process shares, timed
 * as {@code scripts/interop-bench.sh} times Python's readers beside it. The descriptors are parsed, the driver
 * started and the device's primary context made current ({@link InteropReads}) before the clock starts, with no
 * warm-up call: the first opens are a fresh process's; the result is one JSON line ({@link InteropFigures}).
 * <ul>
 *   <li>{@link Case#TENSOR}: torch shares of one storage: the first opened ({@code Descriptors.open} through a
 *       {@code TorchReader}), the others are cached re-opens (the storage open already); with a bandwidth share,
 *       the device-to-device copy bandwidth from a share's mapping into local memory against local to local;</li>
 *   <li>{@link Case#STATE_DICT}: every torch share opened, one after the other;</li>
 *   <li>{@link Case#SCALE}: every torch share opened, one after the other, as a service opens a state dict at a
 *       model's size: no warm-up call before the clock, and the time from the process's exec to the last share
 *       open beside the open alone; then the steady rounds, each the same storages shared again (cache hits);</li>
 *   <li>{@link Case#POOL}: a memory-pool export with {@code fd_numbers} opened ({@code Descriptors.open}): the fd
 *       taken with {@code pidfd_getfd}, the pool and the pointer imported by {@code MemoryImporter}.</li>
 * </ul>
 */
public final class InteropBench {
    private InteropBench() {}

    /** What is timed. */
    public enum Case {
        /** Torch shares of one storage: a first open, then cached re-opens. */
        TENSOR("tensor"),
        /** Every torch share, opened one after the other. */
        STATE_DICT("state-dict"),
        /** Every torch share opened as a service opens them, timed from the process's exec; then steady rounds. */
        SCALE("scale"),
        /** A memory-pool export passed as a file descriptor. */
        POOL("pool");

        private final String label;

        Case(String label) {
            this.label = label;
        }

        /**
         * The case's name, as the command line and the JSON line write it.
         *
         * @return {@code tensor}, {@code state-dict}, {@code scale} or {@code pool}
         */
        public String label() {
            return label;
        }

        /**
         * The case of a name.
         *
         * @param label a case's {@link #label()}
         * @return the case, or null for no case
         */
        public static Case of(String label) {
            for (Case c : values()) {
                if (c.label.equals(label)) {
                    return c;
                }
            }
            return null;
        }
    }

    /**
     * A checked run: the case, its descriptors (each fit for it, see {@link #unfit}), the share whose mapping the
     * bandwidth is measured through or null, the copies per timed batch of that measurement, and whether only the
     * reader's driver calls are timed ({@link #unfitForDriverCalls}).
     *
     * @param benchCase what is timed
     * @param descriptors the descriptors to open
     * @param bandwidth a torch share for {@link Case#TENSOR}'s bandwidth, or null
     * @param iterations back-to-back copies per timed batch of the bandwidth, at least 1
     * @param driverOnly the torch reader's driver calls alone, made through the binding directly, instead of the
     *                   reader: the floor that {@code interop_bench_py.py driver-reader} measures through
     *                   {@code cuda.bindings}, here through FFM
     * @param steady {@link Case#SCALE}'s steady rounds: per round, a file of further shares of the first round's
     *               storages, read after the first round's clock ({@link #steadyRound}; empty for none)
     * @param execEpochMicros {@link Case#SCALE}, and {@link Case#POOL} timed from the exec: when this process was
     *                        exec'd, in microseconds since the epoch (the clock of the caller just before the exec),
     *                        or 0 elsewhere
     */
    public record Plan(Case benchCase, List<Descriptor> descriptors, Descriptor bandwidth, int iterations,
            boolean driverOnly, List<Path> steady, long execEpochMicros) {
        /**
         * Copies the descriptors.
         *
         * @throws IllegalArgumentException for no descriptor, fewer than one iteration, steady rounds outside
         *                                  {@link Case#SCALE}, an exec time outside {@link Case#SCALE} and
         *                                  {@link Case#POOL}, or {@link Case#SCALE} without its exec time
         */
        public Plan {
            descriptors = List.copyOf(descriptors);
            steady = List.copyOf(steady);
            if (descriptors.isEmpty() || iterations < 1) {
                throw new IllegalArgumentException("a plan takes descriptors and at least one iteration");
            }
            if ((benchCase == Case.SCALE && execEpochMicros <= 0)
                    || (execEpochMicros > 0 && benchCase != Case.SCALE && benchCase != Case.POOL)
                    || (benchCase != Case.SCALE && !steady.isEmpty())) {
                throw new IllegalArgumentException("the scale case takes the exec time and steady rounds, the pool"
                        + " case may take the exec time, no other case either");
            }
        }

        /**
         * A plan of the reader or of its driver calls alone, outside {@link Case#SCALE}.
         *
         * @param benchCase what is timed
         * @param descriptors the descriptors to open
         * @param bandwidth a torch share for {@link Case#TENSOR}'s bandwidth, or null
         * @param iterations back-to-back copies per timed batch of the bandwidth, at least 1
         * @param driverOnly the torch reader's driver calls alone
         */
        public Plan(Case benchCase, List<Descriptor> descriptors, Descriptor bandwidth, int iterations,
                boolean driverOnly) {
            this(benchCase, descriptors, bandwidth, iterations, driverOnly, List.of(), 0);
        }

        /**
         * A plan of {@link Case#SCALE}.
         *
         * @param descriptors the descriptors to open
         * @param steady per steady round, a file of further shares of the same storages
         * @param execEpochMicros when this process was exec'd, in microseconds since the epoch
         * @return the plan
         */
        public static Plan scale(List<Descriptor> descriptors, List<Path> steady, long execEpochMicros) {
            return new Plan(Case.SCALE, descriptors, null, 1, false, steady, execEpochMicros);
        }

        /**
         * A plan of {@link Case#POOL} timed from this process's exec as well.
         *
         * @param descriptors the pool export to open
         * @param execEpochMicros when this process was exec'd, in microseconds since the epoch
         * @return the plan
         */
        public static Plan poolFromExec(List<Descriptor> descriptors, long execEpochMicros) {
            return new Plan(Case.POOL, descriptors, null, 1, false, List.of(), execEpochMicros);
        }

        /** {@return whether the figures are timed from this process's exec too} */
        boolean fromExec() {
            return execEpochMicros > 0;
        }

        /**
         * A plan of the reader itself.
         *
         * @param benchCase what is timed
         * @param descriptors the descriptors to open
         * @param bandwidth a torch share for {@link Case#TENSOR}'s bandwidth, or null
         * @param iterations back-to-back copies per timed batch of the bandwidth, at least 1
         */
        public Plan(Case benchCase, List<Descriptor> descriptors, Descriptor bandwidth, int iterations) {
            this(benchCase, descriptors, bandwidth, iterations, false);
        }

        /** The case's name, as the figures write it. */
        String caseName() {
            return benchCase.label();
        }
    }

    /**
     * The descriptors of a file, one JSON line each (blank lines skipped).
     *
     * @param file the file
     * @return its descriptors, at least one
     * @throws IllegalArgumentException in one line: no such file, unreadable, no descriptor, a line that is none
     */
    public static List<Descriptor> readDescriptors(Path file) {
        return InteropFigures.readDescriptors(file);
    }

    /**
     * The descriptors of a steady round of {@link Case#SCALE}, each checked as the case's ({@link #unfit}). The reader
     * reads them after its first round's clock, as torch's reader does: parsing them is no part of the open it times.
     *
     * @param file the round's file, one JSON line per descriptor
     * @return its descriptors, at least one
     * @throws IllegalArgumentException in one line naming the file: unreadable, no descriptor, one the case refuses
     */
    public static List<Descriptor> steadyRound(Path file) {
        List<Descriptor> round = readDescriptors(file);
        for (Descriptor d : round) {
            String why = unfit(Case.SCALE, d);
            if (why != null) {
                throw new IllegalArgumentException(file + ": " + why);
            }
        }
        return round;
    }

    /**
     * Why a descriptor cannot be opened in a case.
     *
     * @param benchCase the case
     * @param d the descriptor
     * @return the reason in words, or null when it fits
     */
    public static String unfit(Case benchCase, Descriptor d) {
        if (benchCase == Case.POOL) {
            if (d.kind() != Descriptor.Kind.POOL || d.handleType() != Descriptor.HandleType.POSIX_FD
                    || d.fdNumbers() == null) {
                return "the pool case takes a pool descriptor with posix_fd and fd_numbers, got " + d.kind().code()
                        + (d.handleType() != null ? " with " + d.handleType().code() : "")
                        + (d.fdNumbers() == null ? " without fd_numbers" : "");
            }
            return null;
        }
        if (d.kind() != Descriptor.Kind.TORCH) {
            return "the " + benchCase.label() + " case takes torch descriptors, got " + d.kind().code();
        }
        if (d.torch().handle() == null) {
            return "an empty storage's share maps nothing to time";
        }
        if (d.deviceUuid() == null) {
            return "a torch descriptor without device_uuid (write it with cudaipc4j.share)";
        }
        return null;
    }

    /**
     * Why a descriptor cannot be opened by the driver calls alone ({@link Plan#driverOnly()}): besides
     * {@link #unfit}, those take legacy ({@code 'c'}) torch shares only, as the Python floor does, and no pool.
     *
     * @param benchCase the case
     * @param d the descriptor
     * @return the reason in words, or null when it fits
     */
    public static String unfitForDriverCalls(Case benchCase, Descriptor d) {
        if (benchCase == Case.POOL || benchCase == Case.SCALE) {
            return "the driver calls alone are timed for torch shares (tensor, state-dict), not for a "
                    + (benchCase == Case.POOL ? "pool" : "scale run (its floor is scripts/interop_driver_reader.c)");
        }
        String why = unfit(benchCase, d);
        if (why != null) {
            return why;
        }
        return InteropFigures.alloc(d).equals("c") ? null
                : "the driver calls alone are timed for legacy ('c') torch shares only, got an expandable segment's";
    }

    /**
     * Measures a plan in this process with what {@code start} began before the plan's descriptors were read.
     *
     * @param plan what to time
     * @param start what this process started first, of the plan's case; its leases are closed here
     * @return the figures as one JSON line
     */
    public static String run(Plan plan, ReaderStart start) {
        return InteropReads.run(plan, start).jsonLine();
    }

    /**
     * What a reader process starts first, on a thread of its own, so that its starts run beside the descriptors'
     * read: for the torch cases torch's leases ({@link TorchLeases#start()}: the lease book, then the watcher
     * process starting), and for a reader that starts as a service starts ({@link ServiceReader}), first the driver
     * ({@link Cuda#initInBackground}). Closing it closes the leases not handed to a run.
     */
    public static final class ReaderStart implements AutoCloseable {
        private final long epochMicros;
        private final CompletableFuture<TorchLeases> leases;
        private long readMicros;
        private boolean taken;

        private ReaderStart(long epochMicros, CompletableFuture<TorchLeases> leases) {
            this.epochMicros = epochMicros;
            this.leases = leases;
        }

        /**
         * {@return the starts of a reader of {@code benchCase}, begun}
         *
         * @param benchCase the case the process will measure
         * @param driverOnly whether it times the driver calls alone (no leases)
         */
        public static ReaderStart of(Case benchCase, boolean driverOnly) {
            return of(benchCase, driverOnly, false);
        }

        /**
         * {@return the starts of a reader of {@code benchCase} that starts as a service starts: the driver first}
         *
         * @param benchCase the case the process will measure
         */
        static ReaderStart ofService(Case benchCase) {
            return of(benchCase, false, true);
        }

        private static ReaderStart of(Case benchCase, boolean driverOnly, boolean driverFirst) {
            boolean torch = benchCase != Case.POOL && !driverOnly;
            long epochMicros = InteropFigures.epochMicros();
            return new ReaderStart(epochMicros, CompletableFuture.supplyAsync(() -> {
                if (driverFirst) {
                    Cuda.initInBackground(() -> { }, () -> { });
                }
                return torch ? TorchLeases.start() : null;
            }, r -> Thread.ofPlatform().daemon().name("cudaipc4j-reader-start").start(r)));
        }

        /** {@return when this start began, in microseconds since the epoch} */
        long epochMicros() {
            return epochMicros;
        }

        /** Notes that the process has read its descriptors: now, unless noted before. */
        public void descriptorsRead() {
            if (readMicros == 0) {
                readMicros = InteropFigures.epochMicros();
            }
        }

        /** {@return when the process had read its descriptors, in microseconds since the epoch} */
        long readMicros() {
            descriptorsRead();
            return readMicros;
        }

        /**
         * {@return the leases, now the caller's to close, or null for a pool reader or the driver calls alone}
         *
         * @throws org.cudaipc4j.interop.torch.TorchInteropException when they could not start
         */
        TorchLeases takeLeases() {
            taken = true;
            try {
                return leases.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }

        @Override
        public void close() {
            if (!taken) {
                taken = true;
                try {
                    TorchLeases l = leases.join();
                    if (l != null) {
                        l.close();
                    }
                } catch (java.util.concurrent.CompletionException e) {
                    // They never started: nothing to close.
                }
            }
        }
    }
}
