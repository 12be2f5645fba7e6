package org.cudaipc4j.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.driver.IpcCalls;
import org.cudaipc4j.cuda.driver.MemoryCalls;
import org.cudaipc4j.cuda.driver.StreamCalls;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.torch.TorchCounterFile;
import org.cudaipc4j.interop.torch.TorchShare;

/**
 * The torch reader's driver calls alone, through the binding directly ({@code bench interop --driver-only}): the same
 * calls, in the same order and timed the same way, as {@code interop_bench_py.py driver-reader} makes through
 * {@code cuda.bindings}: each distinct block's {@code cuIpcOpenMemHandle}, and per share that asks for it
 * {@code cuIpcOpenEventHandle}, {@code cuStreamWaitEvent} and {@code cuEventDestroy}. Beside the Python floor it shows
 * what the FFM binding itself costs; beside the reader's phases, what the reader adds around the calls.
 *
 * <p>Before the clock: an event made, waited on and destroyed (the Python floor's process has made its stream and
 * synchronized it too), the stream synchronized; the loop's own functions are first called inside the clock, as in a
 * fresh reader's first opens. After it: the stream
 * synchronized, each block's {@code cuMemGetAddressRange} timed on its own ({@code address_range_us}, summed; the
 * size query the library's {@code IpcMemHandle.open} makes), the blocks closed, and each share's counter slot given
 * back once, as a reader's close does; the last two also when a call failed. Legacy ({@code 'c'}) shares only.
 */
final class InteropDriverCalls {
    /** The phases of its calls, in order, named as the Java reader's ({@link OpenPhases.Phase#code()}). */
    private static final OpenPhases.Phase[] PHASES = {OpenPhases.Phase.IPC_OPEN, OpenPhases.Phase.EVENT_OPEN,
        OpenPhases.Phase.EVENT_WAIT, OpenPhases.Phase.EVENT_DESTROY};

    private InteropDriverCalls() {}

    static InteropFigures run(InteropBench.Plan plan, Context context, Stream stream) {
        List<Descriptor> descriptors = plan.descriptors();
        List<TorchShare> shares = descriptors.stream().map(TorchShare::of).toList();
        long bytes = descriptors.stream().mapToLong(Descriptor::bytes).sum();
        boolean tensor = plan.benchCase() == InteropBench.Case.TENSOR;
        InteropFigures figures = new InteropFigures(plan.caseName(), "c", tensor ? descriptors.getFirst().bytes()
                : bytes, tensor ? 1 : shares.size());
        figures.fields().put("impl", "java-driver");
        try (Arena arena = Arena.ofConfined()) {
            Map<String, byte[]> blocks = new LinkedHashMap<>();
            List<String> keys = new ArrayList<>(shares.size());
            List<byte[]> events = new ArrayList<>(shares.size());
            for (TorchShare s : shares) {
                byte[] raw = s.handle().ipcMemHandle();
                String key = HexFormat.of().formatHex(raw);
                keys.add(key);
                blocks.putIfAbsent(key, raw);
                events.add(s.eventSyncRequired() ? s.eventHandle() : null);
            }
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemorySegment eventOut = arena.allocate(ADDRESS);
            MemorySegment streamHandle = stream.handle();
            syncStream(context, stream);
            Map<String, Long> mapped = new LinkedHashMap<>();
            try {
                return timed(figures, tensor, shares, keys, blocks, events, mapped, out, eventOut, streamHandle,
                        stream, arena);
            } finally {
                try {
                    for (long pointer : mapped.values()) {
                        IpcCalls.ipcCloseMemHandle(pointer);
                    }
                } finally {
                    for (TorchShare s : shares) { // unmapped first, as a reader's close does
                        TorchCounterFile.release(TorchCounterFile.DEFAULT_DIRECTORY, s.refCounterFile(),
                                s.refCounterSlot());
                    }
                }
            }
        }
    }

    /** An event recorded on the stream and waited on, then the stream synchronized: the stream in use. */
    private static void syncStream(Context context, Stream stream) {
        try (Event e = Event.create(context, EventFlag.DISABLE_TIMING)) {
            e.record(stream);
            stream.waitEvent(e);
        }
        stream.synchronize();
    }

    /** The clock's part: the calls, then the figures (blocks mapped are added to {@code mapped} as they open). */
    private static InteropFigures timed(InteropFigures figures, boolean tensor, List<TorchShare> shares,
            List<String> keys, Map<String, byte[]> blocks, List<byte[]> events, Map<String, Long> mapped,
            MemorySegment out, MemorySegment eventOut, MemorySegment streamHandle, Stream stream, Arena arena) {
        long[] perShare = new long[shares.size()];
        long[][] laps = new long[shares.size()][PHASES.length];
        long t0 = System.nanoTime();
        for (int i = 0; i < shares.size(); i++) {
            long s0 = System.nanoTime();
            long last = s0;
            if (!mapped.containsKey(keys.get(i))) {
                IpcCalls.ipcOpenMemHandle(out, blocks.get(keys.get(i)), 1);
                mapped.put(keys.get(i), out.get(JAVA_LONG, 0));
                long now = System.nanoTime();
                laps[i][0] = now - last;
                last = now;
            }
            if (events.get(i) != null) {
                IpcCalls.ipcOpenEventHandle(eventOut, events.get(i));
                MemorySegment event = eventOut.get(ADDRESS, 0);
                long now = System.nanoTime();
                laps[i][1] = now - last;
                last = now;
                StreamCalls.streamWaitEvent(streamHandle, event, 0);
                now = System.nanoTime();
                laps[i][2] = now - last;
                last = now;
                StreamCalls.eventDestroy(event);
                now = System.nanoTime();
                laps[i][3] = now - last;
                last = now;
            }
            perShare[i] = last - s0;
        }
        long elapsed = System.nanoTime() - t0;
        stream.synchronize();
        long addressRanges = addressRanges(arena, mapped.values());
        if (tensor) {
            figures.put("first_open_us", perShare[0] / 1e3);
            phases(figures, "first_open_", laps[0]);
            if (perShare.length > 1) {
                figures.put("reopen_us", InteropFigures.medianMicros(java.util.Arrays.copyOfRange(perShare, 1,
                        perShare.length)));
                figures.put("reopens", (long) perShare.length - 1);
            }
        } else {
            figures.put("open_us", elapsed / 1e3).put("blocks", (long) mapped.size());
            long[] sums = new long[PHASES.length];
            for (long[] lap : laps) {
                for (int p = 0; p < sums.length; p++) {
                    sums[p] += lap[p];
                }
            }
            phases(figures, "open_", sums);
        }
        return figures.put("address_range_us", addressRanges / 1e3);
    }

    /** Each phase that took time, as {@code PREFIX}{@code PHASE_us}. */
    private static void phases(InteropFigures figures, String prefix, long[] nanos) {
        for (int p = 0; p < PHASES.length; p++) {
            if (nanos[p] != 0) {
                figures.put(prefix + PHASES[p].code() + "_us", nanos[p] / 1e3);
            }
        }
    }

    /** The nanoseconds of {@code cuMemGetAddressRange} on each mapped block, summed. */
    private static long addressRanges(Arena arena, Iterable<Long> pointers) {
        MemorySegment size = arena.allocate(JAVA_LONG);
        long sum = 0;
        for (long pointer : pointers) {
            long t = System.nanoTime();
            MemoryCalls.memGetAddressRange(MemorySegment.NULL, size, pointer);
            sum += System.nanoTime() - t;
        }
        return sum;
    }
}
