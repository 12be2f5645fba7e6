package org.cudaipc4j.bench;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.opening.Descriptors;
import org.cudaipc4j.interop.opening.OpenOptions;
import org.cudaipc4j.interop.opening.Openable;
import org.cudaipc4j.interop.opening.OpenedTensor;
import org.cudaipc4j.interop.torch.TorchLeases;
import org.cudaipc4j.interop.torch.TorchReader;

/**
 * The measuring part of the interop benchmark ({@link InteropBench}), in this process, fresh: its first opens are a
 * fresh process's, with no warm-up call. Before the clock starts: torch's leases started
 * ({@link InteropBench.ReaderStart}, before the descriptors' read) and their watcher watching, the driver started, the
 * device's primary context current, a stream made, the descriptors parsed and checked by the library's
 * {@link Descriptors#openable}. The clock then times the library's open calls alone ({@link Openable#open}): a torch
 * share's mapping (or its cache hit), its lease and its stream's wait on the producer's event; a pool export's
 * {@code pidfd_getfd}, imports and descriptor close. Each open is also timed phase by phase ({@link OpenPhases},
 * given in its options). Nothing is synchronized inside a timing.
 */
final class InteropReads {
    /** Batches of the bandwidth measurement, alternating mapped and local; the median is reported. */
    static final int BATCHES = 5;

    /**
     * Counts the classes this JVM loaded: a class loaded while the clock runs is part of a fresh process's first open,
     * reported beside the phases ({@code first_open_classes_loaded}, {@code open_classes_loaded}).
     */
    private static final ClassLoadingMXBean LOADED = ManagementFactory.getClassLoadingMXBean();

    private InteropReads() {}

    static InteropFigures run(InteropBench.Plan plan, InteropBench.ReaderStart start) {
        boolean scale = plan.benchCase() == InteropBench.Case.SCALE;
        long read = start.readMicros();
        try (TorchLeases leases = start.takeLeases()) {
            long init = InteropFigures.epochMicros();
            Cuda.init();
            long context0 = InteropFigures.epochMicros();
            Device device = Device.byUuid(plan.descriptors().getFirst().deviceUuid());
            try (Context context = Context.retainPrimary(device)) {
                context.makeCurrent();
                Stream stream = Stream.create(context, true);
                // A plan timed from the exec: where the time went before the open: the JVM up to the reader's
                // start, reading the descriptors (the leases and the driver starting beside it), waiting for the
                // leases, for the driver's start, the context and stream.
                long[] stages = !plan.fromExec() ? null : new long[] {start.epochMicros() - plan.execEpochMicros(),
                    read - start.epochMicros(), init - read, context0 - init, InteropFigures.epochMicros() - context0};
                if (scale) {
                    return scale(plan, context, stream, new TorchReader(context, leases), stages);
                }
                if (leases != null) {
                    leases.awaitWatching(); // the first open is timed, not the watcher's start beside it
                }
                if (plan.driverOnly()) {
                    return InteropDriverCalls.run(plan, context, stream);
                }
                return switch (plan.benchCase()) {
                    case TENSOR -> tensor(plan, context, stream, new TorchReader(context, leases));
                    case STATE_DICT -> stateDict(plan, context, stream, new TorchReader(context, leases));
                    case SCALE -> throw new AssertionError("timed above");
                    case POOL -> pool(plan, context, stream, stages);
                };
            }
        }
    }

    /** The first share opened, then the others (cache hits), then the bandwidth through a mapping. */
    private static InteropFigures tensor(InteropBench.Plan plan, Context context, Stream stream,
            TorchReader reader) {
        // Checked and parsed before the clock; each open adds its phases to a record of its own.
        OpenOptions options = OpenOptions.defaults().withTorchReader(reader);
        OpenPhases firstPhases = new OpenPhases();
        Openable first = Descriptors.openable(plan.descriptors().getFirst(), options.withPhases(firstPhases));
        OpenPhases[] reopenPhases = new OpenPhases[plan.descriptors().size() - 1];
        Openable[] reopenables = new Openable[reopenPhases.length];
        for (int i = 0; i < reopenables.length; i++) {
            reopenPhases[i] = new OpenPhases();
            reopenables[i] = Descriptors.openable(plan.descriptors().get(i + 1), options.withPhases(reopenPhases[i]));
        }
        Descriptor d = plan.descriptors().getFirst();
        InteropFigures figures = new InteropFigures("tensor", InteropFigures.alloc(d), d.bytes(), 1);
        List<OpenedTensor> views = new ArrayList<>();
        try {
            long classes = LOADED.getTotalLoadedClassCount();
            long t0 = System.nanoTime();
            views.add(first.open(context, stream));
            long firstNanos = System.nanoTime() - t0;
            figures.put("first_open_classes_loaded", LOADED.getTotalLoadedClassCount() - classes);
            long[] reopens = new long[reopenables.length];
            for (int i = 0; i < reopenables.length; i++) {
                t0 = System.nanoTime();
                views.add(reopenables[i].open(context, stream));
                reopens[i] = System.nanoTime() - t0;
            }
            for (int i = 1; i < views.size(); i++) {
                if (!views.get(i).cacheHit()) {
                    throw new IllegalStateException(plan.descriptors().get(i) + " is not a share of the first"
                            + " storage: its open is no cached re-open");
                }
            }
            stream.synchronize();
            figures.put("first_open_us", firstNanos / 1e3);
            phases(figures, "first_open", firstPhases);
            if (reopens.length > 0) {
                figures.put("reopen_us", InteropFigures.medianMicros(reopens));
                figures.put("reopens", (long) reopens.length);
                for (OpenPhases.Phase p : OpenPhases.Phase.values()) {
                    long[] each = new long[reopenPhases.length];
                    for (int i = 0; i < each.length; i++) {
                        each[i] = reopenPhases[i].nanos(p);
                    }
                    if (java.util.Arrays.stream(each).anyMatch(n -> n != 0)) {
                        figures.put("reopen_" + p.code() + "_us", InteropFigures.medianMicros(each));
                    }
                }
            }
            if (plan.bandwidth() != null) {
                OpenedTensor bw = Descriptors.open(plan.bandwidth(), context, stream, options);
                views.add(bw);
                stream.synchronize();
                double[] gbps = bandwidth(context, stream, bw, plan.iterations());
                figures.put("copy_gbps_mapped", gbps[0]).put("copy_gbps_local", gbps[1])
                        .put("copy_bytes", bw.bytes());
            }
            return figures;
        } finally {
            Closeables.closeAll(views.reversed().toArray(AutoCloseable[]::new));
        }
    }

    /** Every share opened, one after the other, as a server maps a state dict. */
    private static InteropFigures stateDict(InteropBench.Plan plan, Context context, Stream stream,
            TorchReader reader) {
        EveryShare dict = EveryShare.of("state-dict", plan, reader);
        List<OpenedTensor> views = new ArrayList<>(dict.shares().size());
        try {
            long classes = LOADED.getTotalLoadedClassCount();
            long nanos = dict.openInto(views, context, stream);
            dict.figures().put("open_classes_loaded", LOADED.getTotalLoadedClassCount() - classes);
            stream.synchronize();
            dict.figures().put("open_us", nanos / 1e3).put("blocks", (long) reader.mappedBlocks());
            phases(dict.figures(), "open", dict.phases());
            return dict.figures();
        } finally {
            Closeables.closeAll(views.reversed().toArray(AutoCloseable[]::new));
        }
    }

    /**
     * A state dict at a model's size opened as a service opens it: no warm-up call, each share opened in turn. The
     * figures: {@code exec_to_open_us} from the process's exec (the plan's exec time) to the last share open,
     * {@code open_us} the opens alone, their phases; then per steady round (a file of further shares of the same
     * storages, read and parsed before the round's clock, each open a cache hit, the round's views closed after its
     * clock) {@code steady_round_us}, the median round.
     * {@code impl} is {@code java-aot} where this JVM runs with a JDK AOT cache it was told it must use
     * ({@code -XX:AOTCache} with {@code -XX:AOTMode=on}: the JVM refuses to start where it cannot map the cache),
     * else {@code java}.
     */
    private static InteropFigures scale(InteropBench.Plan plan, Context context, Stream stream, TorchReader reader,
            long[] startMicros) {
        long prepare = System.nanoTime();
        EveryShare dict = EveryShare.of("scale", plan, reader);
        InteropFigures figures = dict.figures();
        stages(figures, startMicros);
        figures.put("prepare_us", (System.nanoTime() - prepare) / 1e3);
        List<OpenedTensor> views = new ArrayList<>(dict.shares().size());
        try {
            long nanos = dict.openInto(views, context, stream);
            long sinceExec = InteropFigures.epochMicros() - plan.execEpochMicros();
            stream.synchronize();
            figures.put("exec_to_open_us", (double) sinceExec).put("open_us", nanos / 1e3)
                    .put("blocks", (long) reader.mappedBlocks());
            phases(figures, "open", dict.phases());
            long[] rounds = new long[plan.steady().size()];
            OpenOptions again = OpenOptions.defaults().withTorchReader(reader);
            for (int r = 0; r < rounds.length; r++) {
                List<Openable> round = InteropBench.steadyRound(plan.steady().get(r)).stream()
                        .map(d -> Descriptors.openable(d, again)).toList();
                List<OpenedTensor> hits = new ArrayList<>(round.size());
                try {
                    rounds[r] = openAll(round, hits, context, stream);
                    if (!hits.stream().allMatch(OpenedTensor::cacheHit)) {
                        throw new IllegalStateException("steady round " + (r + 1) + " holds shares of storages the"
                                + " first round did not open: its opens are no cache hits");
                    }
                } finally {
                    Closeables.closeAll(hits.reversed().toArray(AutoCloseable[]::new));
                }
            }
            if (rounds.length > 0) {
                figures.put("steady_round_us", InteropFigures.medianMicros(rounds))
                        .put("steady_rounds", (long) rounds.length);
            }
            stream.synchronize();
            nameTheCache(figures);
            return figures;
        } finally {
            Closeables.closeAll(views.reversed().toArray(AutoCloseable[]::new));
        }
    }

    /** The stages of the time from exec before the open, as {@link #run} took them. */
    private static void stages(InteropFigures figures, long[] startMicros) {
        figures.put("jvm_start_us", (double) startMicros[0]).put("read_us", (double) startMicros[1])
                .put("leases_wait_us", (double) startMicros[2]).put("driver_wait_us", (double) startMicros[3])
                .put("context_us", (double) startMicros[4]);
    }

    /**
     * Names the figures' reader {@code java-aot} where this JVM runs with a JDK AOT cache it was told it must use
     * ({@code -XX:AOTCache} with {@code -XX:AOTMode=on}: the JVM refuses to start where it cannot map the cache).
     */
    private static void nameTheCache(InteropFigures figures) {
        if (InteropFigures.startedWithAotCache(ManagementFactory.getRuntimeMXBean().getInputArguments())) {
            figures.impl("java-aot");
        }
    }

    /**
     * Every share of a state-dict plan, each to be opened in turn by {@code options} (the torch reader, the phases
     * timed), and the figures of case {@code name} over them.
     */
    private record EveryShare(OpenPhases phases, OpenOptions options, List<Openable> shares, InteropFigures figures) {
        static EveryShare of(String name, InteropBench.Plan plan, TorchReader reader) {
            OpenPhases phases = new OpenPhases();
            OpenOptions options = OpenOptions.defaults().withTorchReader(reader).withPhases(phases);
            List<Openable> shares = plan.descriptors().stream().map(d -> Descriptors.openable(d, options)).toList();
            long bytes = plan.descriptors().stream().mapToLong(Descriptor::bytes).sum();
            return new EveryShare(phases, options, shares, new InteropFigures(name,
                    InteropFigures.alloc(plan.descriptors().getFirst()), bytes, shares.size()));
        }

        /** {@return the nanoseconds it took to open every share into {@code views}, in turn} */
        long openInto(List<OpenedTensor> views, Context context, Stream stream) {
            return openAll(shares, views, context, stream);
        }
    }

    /** {@return the nanoseconds it took to open each of {@code shares} into {@code views}, in turn} */
    private static long openAll(List<Openable> shares, List<OpenedTensor> views, Context context, Stream stream) {
        long t0 = System.nanoTime();
        for (Openable s : shares) {
            views.add(s.open(context, stream));
        }
        return System.nanoTime() - t0;
    }

    /** Each phase of {@code phases} that took time, as {@code PREFIX_PHASE_us}. */
    private static void phases(InteropFigures figures, String prefix, OpenPhases phases) {
        phases.byCode().forEach((code, nanos) -> figures.put(prefix + "_" + code + "_us", nanos / 1e3));
    }

    /**
     * The pool export's first open ({@link Descriptors#open}): its fd taken from the exporter by number, the pool and
     * the pointer imported by the importer, the fd closed, timed whole ({@code first_open_us}) and step by step from
     * the open's phases: {@code pidfd_us}, {@code pool_import_us}, {@code pointer_import_us}. A plan timed from the
     * exec ({@link ServiceReader}) adds {@code exec_to_open_us}, from the exec to the buffer imported, and the stages
     * before the open, as the scale case does; its reader is {@code java-aot} where it runs with its AOT cache.
     */
    private static InteropFigures pool(InteropBench.Plan plan, Context context, Stream stream, long[] startMicros) {
        Descriptor d = plan.descriptors().getFirst();
        OpenPhases phases = new OpenPhases();
        Openable pool = Descriptors.openable(d, OpenOptions.defaults().withPhases(phases));
        InteropFigures figures = new InteropFigures("pool", "pool", d.bytes(), 1);
        long t0 = System.nanoTime();
        OpenedTensor buffer = pool.open(context, stream);
        long t1 = System.nanoTime();
        if (plan.fromExec()) {
            figures.put("exec_to_open_us", (double) (InteropFigures.epochMicros() - plan.execEpochMicros()));
            stages(figures, startMicros);
            nameTheCache(figures);
        }
        try (buffer) {
            figures.put("first_open_us", (t1 - t0) / 1e3).put("pidfd_us", micros(phases, OpenPhases.Phase.PIDFD))
                    .put("pool_import_us", micros(phases, OpenPhases.Phase.POOL_IMPORT))
                    .put("pointer_import_us", micros(phases, OpenPhases.Phase.POINTER_IMPORT));
        }
        return figures;
    }

    private static double micros(OpenPhases phases, OpenPhases.Phase phase) {
        return phases.nanos(phase) / 1e3;
    }

    /**
     * Device-to-device copies ({@code cuMemcpyDtoDAsync}) of all of {@code mapped} into local memory, against the
     * same from a local buffer of that size: {@value #BATCHES} batches of {@code iterations} back-to-back copies
     * each, alternating, timed by CUDA events; GB/s of bytes read, the median batch of each.
     *
     * @return {mapped GB/s, local GB/s}
     */
    static double[] bandwidth(Context context, Stream stream, DeviceMemory mapped, int iterations) {
        long bytes = mapped.bytes();
        try (DeviceBuffer local = DeviceBuffer.allocate(context, bytes);
             DeviceBuffer dst = DeviceBuffer.allocate(context, bytes);
             Event start = Event.create(context);
             Event stop = Event.create(context)) {
            local.copyFromAsync(0, mapped, 0, bytes, stream);
            for (int i = 0; i < 2; i++) {
                dst.copyFromAsync(0, mapped, 0, bytes, stream);
                dst.copyFromAsync(0, local, 0, bytes, stream);
            }
            double[] fromMapped = new double[BATCHES];
            double[] fromLocal = new double[BATCHES];
            for (int b = 0; b < BATCHES; b++) {
                fromMapped[b] = InteropFigures.gbPerSecond(bytes, iterations, KernelTime.backToBackMillis(iterations,
                        0, stream, start, stop, v -> dst.copyFromAsync(0, mapped, 0, bytes, stream)));
                fromLocal[b] = InteropFigures.gbPerSecond(bytes, iterations, KernelTime.backToBackMillis(iterations,
                        0, stream, start, stop, v -> dst.copyFromAsync(0, local, 0, bytes, stream)));
            }
            return new double[] {InteropFigures.median(fromMapped), InteropFigures.median(fromLocal)};
        }
    }
}
