package org.cudaipc4j.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Links the downcall handles of the driver's functions ({@link CudaFunction}) on a background daemon thread, and warms
 * calls once the driver has started.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A function the main thread calls first is simply linked there; a call that finds
 * its function being linked here waits for it.
 *
 * <p>The first call through a handle costs milliseconds more (the code that invokes it is made then: a few ms for
 * a plain signature, more for by-value structs). {@linkplain #WARM_CALLS Warm calls} call a function once in a way
 * the driver refuses before it does anything: the calling thread has no current context and every device, handle
 * and pointer is invalid (-1, null, a zeroed IPC handle).
 */
public final class Prelink {
    /**
     * A refused call per function that can be warmed, in warm-up order: given 64 bytes of zeroed scratch, returns the
     * result code.
     */
    static final Map<CudaFunction, ToIntFunction<MemorySegment>> WARM_CALLS = warmCalls();
    /** The names of {@link #WARM_CALLS}, in the same order. */
    private static final Set<String> WARMABLE = names(WARM_CALLS.keySet());

    /** The classes that call the functions, each giving the handles of its own. */
    private static final List<Function<CudaFunction, MethodHandle>> CALLS = List.of(DeviceCalls::handle,
            MemoryCalls::handle, VmmCalls::handle, PoolCalls::handle, StreamCalls::handle, IpcCalls::handle,
            ModuleCalls::handle);

    /** Functions linked by {@link #link}, by name: what the background thread got done. */
    static final Set<String> LINKED = ConcurrentHashMap.newKeySet();
    /** The codes of the last background warm-up, empty until one ran. */
    static volatile Map<String, Integer> lastWarmUp = Map.of();

    private Prelink() {}

    /** Only calls seen refused on the GPU machine belong here: some entry points do not check every argument. */
    private static Map<CudaFunction, ToIntFunction<MemorySegment>> warmCalls() {
        MemorySegment none = MemorySegment.NULL;
        MemorySegment fdMinusOne = MemorySegment.ofAddress(-1);
        byte[] zeroHandle = new byte[CuSymbols.IPC_HANDLE_SIZE];
        Map<CudaFunction, ToIntFunction<MemorySegment>> w = new LinkedHashMap<>();
        // out: room for any out-parameter; IPC handles passed by value are zeroed.
        w.put(CudaFunction.cuDevicePrimaryCtxRetain, out -> DeviceCalls.cuDevicePrimaryCtxRetain(out, -1));
        w.put(CudaFunction.cuMemAlloc_v2, out -> MemoryCalls.cuMemAlloc_v2(out, 0));
        w.put(CudaFunction.cuEventCreate, out -> StreamCalls.cuEventCreate(out, 0));
        w.put(CudaFunction.cuIpcGetMemHandle, out -> IpcCalls.cuIpcGetMemHandle(out, 0));
        w.put(CudaFunction.cuIpcGetEventHandle, out -> IpcCalls.cuIpcGetEventHandle(out, none));
        w.put(CudaFunction.cuStreamCreate, out -> StreamCalls.cuStreamCreate(out, 0));
        w.put(CudaFunction.cuModuleLoadData, out -> ModuleCalls.cuModuleLoadData(out, none));
        w.put(CudaFunction.cuModuleGetFunction, out -> ModuleCalls.cuModuleGetFunction(out, none, none));
        w.put(CudaFunction.cuIpcOpenMemHandle_v2, out -> IpcCalls.cuIpcOpenMemHandle_v2(out, zeroHandle, 0));
        w.put(CudaFunction.cuMemGetAddressRange_v2, out -> MemoryCalls.cuMemGetAddressRange_v2(none, out, 0));
        w.put(CudaFunction.cuIpcOpenEventHandle, out -> IpcCalls.cuIpcOpenEventHandle(out, zeroHandle));
        w.put(CudaFunction.cuStreamWaitEvent, out -> StreamCalls.cuStreamWaitEvent(none, none, 0));
        w.put(CudaFunction.cuLaunchKernel,
                out -> ModuleCalls.cuLaunchKernel(none, 1, 1, 1, 1, 1, 1, 0, none, none, none));
        w.put(CudaFunction.cuEventRecord, out -> StreamCalls.cuEventRecord(none, none));
        w.put(CudaFunction.cuEventQuery, out -> StreamCalls.cuEventQuery(none));
        w.put(CudaFunction.cuMemsetD8Async, out -> MemoryCalls.cuMemsetD8Async(0, 0, 1, none));
        w.put(CudaFunction.cuMemcpyDtoHAsync_v2, out -> MemoryCalls.cuMemcpyDtoHAsync_v2(out, 0, 1, none));
        w.put(CudaFunction.cuStreamSynchronize, out -> StreamCalls.cuStreamSynchronize(none));
        // Stream memory operations on registered host memory (simpleIPC's counters).
        w.put(CudaFunction.cuMemHostRegister_v2, out -> MemoryCalls.cuMemHostRegister_v2(none, 0, 0));
        w.put(CudaFunction.cuMemHostGetDevicePointer_v2, out -> MemoryCalls.cuMemHostGetDevicePointer_v2(out, none, 0));
        w.put(CudaFunction.cuStreamWaitValue32_v2, out -> StreamCalls.cuStreamWaitValue32_v2(none, 0, 0, 0));
        w.put(CudaFunction.cuStreamWriteValue32_v2, out -> StreamCalls.cuStreamWriteValue32_v2(none, 0, 0, 0));
        // Importing VMM and pool memory: fd -1, size 0, null handles and pools.
        w.put(CudaFunction.cuMemImportFromShareableHandle,
                out -> VmmCalls.cuMemImportFromShareableHandle(out, fdMinusOne, 1));
        w.put(CudaFunction.cuMemGetAllocationGranularity,
                out -> VmmCalls.cuMemGetAllocationGranularity(out, none, 0));
        w.put(CudaFunction.cuMemAddressReserve, out -> VmmCalls.cuMemAddressReserve(out, 0, 0, 0, 0));
        w.put(CudaFunction.cuMemMap, out -> VmmCalls.cuMemMap(0, 0, 0, 0, 0));
        w.put(CudaFunction.cuMemSetAccess, out -> VmmCalls.cuMemSetAccess(0, 0, none, 0));
        w.put(CudaFunction.cuMemRelease, out -> VmmCalls.cuMemRelease(0));
        w.put(CudaFunction.cuMemPoolImportFromShareableHandle,
                out -> PoolCalls.cuMemPoolImportFromShareableHandle(out, fdMinusOne, 1, 0));
        w.put(CudaFunction.cuMemPoolImportPointer, out -> PoolCalls.cuMemPoolImportPointer(out, none, none));
        return Collections.unmodifiableMap(w);
    }

    private static Set<String> names(Collection<CudaFunction> functions) {
        Set<String> names = new LinkedHashSet<>();
        for (CudaFunction f : functions) {
            names.add(f.name());
        }
        return Collections.unmodifiableSet(names);
    }

    /**
     * Starts the background linking and returns its thread, or null when {@code cudaipc4j.noPrelink} is true. Does
     * nothing when the driver is not there.
     *
     * @param first       functions to link first, in this order (what the process calls soonest); then the rest
     * @param awaitDriver run once the handles are linked; returns when the driver has started (it may start it),
     *                    throws when it cannot. Null for no warm calls.
     * @param warm        functions to {@linkplain #warm warm} after {@code awaitDriver}, unless
     *                    {@code cudaipc4j.noWarmUp} is true
     * @return the thread, or null when disabled
     * @throws IllegalArgumentException when a name is not bound, or cannot be warmed
     */
    public static Thread startInBackground(List<String> first, Runnable awaitDriver, Collection<String> warm) {
        requireBound(first);
        requireWarmable(warm);
        if (CudaSettings.NO_PRELINK.get()) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("cudaipc4j-prelink").start(() -> {
            if (!CudaLibrary.isAvailable()) {
                return;
            }
            Set<CudaFunction> order = new LinkedHashSet<>();
            for (String name : first) {
                order.add(CudaFunction.named(name).orElseThrow());
            }
            order.addAll(List.of(CudaFunction.values()));
            for (CudaFunction function : order) {
                link(function);
            }
            if (awaitDriver != null && !warm.isEmpty() && !CudaSettings.NO_WARM_UP.get()) {
                try {
                    awaitDriver.run();
                    lastWarmUp = warm(warm);
                } catch (RuntimeException | LinkageError e) {
                    // The driver did not start, or a function is missing: the real calls report that.
                }
            }
        });
    }

    /**
     * Links {@code function}'s handle now unless it is, by initialising the holder class its call reads the handle
     * from: what its first call would do. Without the library or the function, the handle throws the reported
     * exception when called.
     *
     * @param function the function
     */
    public static void link(CudaFunction function) {
        try {
            handle(function);
            LINKED.add(function.name());
        } catch (RuntimeException | LinkageError e) {
            // It cannot link: the real call reports that.
        }
    }

    /** {@return the handle of {@code function}'s call, linked now unless it is} */
    static MethodHandle handle(CudaFunction function) {
        for (Function<CudaFunction, MethodHandle> calls : CALLS) {
            MethodHandle handle = calls.apply(function);
            if (handle != null) {
                return handle;
            }
        }
        throw new IllegalStateException(function + " has no call");
    }

    /**
     * Calls each of {@code functions} once in a way the driver refuses. Call after the driver has started, on a
     * thread that has never made a context current.
     *
     * @param functions the functions' names
     * @return each function's result code, in call order (none should be {@code CUDA_SUCCESS})
     */
    public static Map<String, Integer> warm(Collection<String> functions) {
        requireWarmable(functions);
        Map<String, Integer> codes = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment scratch = arena.allocate(64, 8);
            for (String f : functions) {
                scratch.fill((byte) 0);
                codes.put(f, WARM_CALLS.get(CudaFunction.named(f).orElseThrow()).applyAsInt(scratch));
            }
        }
        return codes;
    }

    /** {@return the functions {@link #warm} can call, by name, in a fixed order} */
    public static Set<String> warmable() {
        return WARMABLE;
    }

    private static void requireBound(Collection<String> names) {
        for (String n : names) {
            if (CudaFunction.named(n).isEmpty()) {
                throw new IllegalArgumentException(n + " is not a bound driver function");
            }
        }
    }

    private static void requireWarmable(Collection<String> names) {
        for (String n : names) {
            if (!WARMABLE.contains(n)) {
                throw new IllegalArgumentException(n + " has no refused call to warm it with");
            }
        }
    }
}
