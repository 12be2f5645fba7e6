package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.CudaError;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.VmmCalls;

/** The driver structures and calls VMM allocations, mappings and pools share. */
final class Vmm {
    static final int ALLOCATION_TYPE_PINNED = 1;
    static final int LOCATION_TYPE_DEVICE = 1;
    static final int ACCESS_READWRITE = 3;
    static final int GRANULARITY_MINIMUM = 0;
    static final int GRANULARITY_RECOMMENDED = 1;

    private static final VarHandle PROP_TYPE = CuSymbols.CU_MEM_ALLOCATION_PROP.varHandle(groupElement("type"));
    private static final VarHandle PROP_HANDLE_TYPES =
            CuSymbols.CU_MEM_ALLOCATION_PROP.varHandle(groupElement("requestedHandleTypes"));
    private static final VarHandle PROP_LOCATION_TYPE = CuSymbols.CU_MEM_ALLOCATION_PROP.varHandle(
            groupElement("location"), groupElement("type"));
    private static final VarHandle PROP_LOCATION_ID = CuSymbols.CU_MEM_ALLOCATION_PROP.varHandle(
            groupElement("location"), groupElement("id"));
    private static final VarHandle ACCESS_LOCATION_TYPE = CuSymbols.CU_MEM_ACCESS_DESC.varHandle(
            groupElement("location"), groupElement("type"));
    private static final VarHandle ACCESS_LOCATION_ID = CuSymbols.CU_MEM_ACCESS_DESC.varHandle(
            groupElement("location"), groupElement("id"));
    private static final VarHandle ACCESS_FLAGS = CuSymbols.CU_MEM_ACCESS_DESC.varHandle(groupElement("flags"));

    private Vmm() {}

    /** A {@code CUmemAllocationProp} for pinned device memory on {@code device}, exportable as {@code types}. */
    static MemorySegment allocationProp(Arena arena, Device device, Set<ShareableHandleType> types) {
        MemorySegment prop = arena.allocate(CuSymbols.CU_MEM_ALLOCATION_PROP);
        PROP_TYPE.set(prop, 0L, ALLOCATION_TYPE_PINNED);
        PROP_HANDLE_TYPES.set(prop, 0L, ShareableHandleType.bits(types));
        PROP_LOCATION_TYPE.set(prop, 0L, LOCATION_TYPE_DEVICE);
        PROP_LOCATION_ID.set(prop, 0L, device.ordinal());
        return prop;
    }

    /** A {@code CUmemAccessDesc} granting {@code device} read-write access. */
    static MemorySegment readWriteAccess(Arena arena, Device device) {
        MemorySegment desc = arena.allocate(CuSymbols.CU_MEM_ACCESS_DESC);
        ACCESS_LOCATION_TYPE.set(desc, 0L, LOCATION_TYPE_DEVICE);
        ACCESS_LOCATION_ID.set(desc, 0L, device.ordinal());
        ACCESS_FLAGS.set(desc, 0L, ACCESS_READWRITE);
        return desc;
    }

    /**
     * Granularities asked for, by device ordinal (high half) and handle-type bits: every allocation and import needs
     * one, and it never changes within a process.
     */
    private static final ConcurrentHashMap<Long, Long> GRANULARITIES = new ConcurrentHashMap<>();

    /** The recommended granularity for allocations on {@code device} exportable as {@code types}. */
    static long granularity(Device device, Set<ShareableHandleType> types) {
        return granularity(device, types, GRANULARITY_RECOMMENDED);
    }

    /**
     * The minimum granularity on {@code device} for {@code types}: what {@code cuMemCreate} and {@code cuMemMap}
     * require of a size, an offset and an address (cuda.h, their comments: "a multiple of the value given via
     * cuMemGetAllocationGranularity with the CU_MEM_ALLOC_GRANULARITY_MINIMUM flag"). A mapping of another process's allocation checks against this, not the recommended one:
     * the exporter may have chosen any multiple of the minimum (PyTorch's expandable segments use 2 MiB chunks,
     * whatever the driver recommends).
     */
    static long minimumGranularity(Device device, Set<ShareableHandleType> types) {
        return granularity(device, types, GRANULARITY_MINIMUM);
    }

    private static long granularity(Device device, Set<ShareableHandleType> types, int option) {
        long key = ((long) device.ordinal() << 32) | ((long) option << 16) | ShareableHandleType.bits(types);
        Long known = GRANULARITIES.get(key);
        if (known != null) {
            return known;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            VmmCalls.memGetAllocationGranularity(out, allocationProp(arena, device, types), option);
            long granularity = out.get(JAVA_LONG, 0);
            GRANULARITIES.put(key, granularity);
            return granularity;
        }
    }

    /**
     * Checks that {@code bytes}, the size of an allocation another process made, can be mapped here: a whole
     * multiple of the device's minimum granularity.
     *
     * @param bytes the size
     * @param minimum the minimum granularity
     * @param what what the size is, for the message ("a chunk")
     * @param device the device, for the message
     * @throws IllegalArgumentException when it is not
     */
    static void requireMappable(long bytes, long minimum, String what, Object device) {
        if (minimum < 1 || bytes % minimum != 0) {
            throw new IllegalArgumentException("a VMM allocation's size is a multiple of the minimum granularity, "
                    + minimum + " bytes on " + device + "; " + what + " of " + bytes + " bytes is not");
        }
    }

    /**
     * Reserves an address range of {@code size}, maps {@code handle} into it and grants {@code device} read-write
     * access; returns the address. Undoes what it did when a step fails.
     */
    static long reserveMapAndAllow(long handle, long size, long alignment, Device device) {
        long address;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            VmmCalls.memAddressReserve(out, size, alignment, 0, 0);
            address = out.get(JAVA_LONG, 0);
            int r = VmmCalls.cuMemMap(address, size, 0, handle, 0);
            if (r != CudaFunction.CUDA_SUCCESS) {
                CudaException e = Checks.failure(CudaFunction.cuMemMap, r);
                Closing.closeAfter(() -> VmmCalls.memAddressFree(address, size), e);
                throw e;
            }
            r = VmmCalls.cuMemSetAccess(address, size, readWriteAccess(arena, device), 1);
            if (r != CudaFunction.CUDA_SUCCESS) {
                CudaException e = Checks.failure(CudaFunction.cuMemSetAccess, r);
                Closing.closeAfter(() -> VmmCalls.memUnmap(address, size), e);
                Closing.closeAfter(() -> VmmCalls.memAddressFree(address, size), e);
                throw e;
            }
            return address;
        }
    }

    /**
     * Maps {@code handle} (reserve, map, allow {@code device}) and gives the address to {@code owner}, which wraps
     * it in the resource that will own it. The handle is released when mapping fails, and unmapped and released
     * when the owner cannot be made: one owner at every step.
     */
    static <T> T mapOwned(long handle, long size, long alignment, Device device, java.util.function.LongFunction<T> owner) {
        long address;
        try {
            address = reserveMapAndAllow(handle, size, alignment, device);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> VmmCalls.memRelease(handle), e);
            throw e;
        }
        try {
            return owner.apply(address);
        } catch (RuntimeException e) {
            unmapAndRelease(address, size, handle);
            throw e;
        }
    }

    /** Unmaps, frees the address range and releases the handle: each tried, the first failure thrown. */
    static void unmapAndRelease(long address, long size, long handle) {
        Closing.closeAll(
                () -> VmmCalls.memUnmap(address, size),
                () -> VmmCalls.memAddressFree(address, size),
                () -> VmmCalls.memRelease(handle));
    }

    /** The 64 bytes of a fabric handle, checked. */
    static MemorySegment fabricHandle(Arena arena, byte[] handle) {
        Checks.requireLength(handle, CuSymbols.CU_MEM_FABRIC_HANDLE.byteSize(), "a fabric handle");
        MemorySegment h = arena.allocate(CuSymbols.CU_MEM_FABRIC_HANDLE);
        MemorySegment.copy(handle, 0, h, JAVA_BYTE, 0, handle.length);
        return h;
    }

    /**
     * The exception for a failed fabric export or import, saying why fabric handles usually fail: the IMEX service
     * or its channel is missing.
     */
    static CudaException fabricFailure(CudaFunction function, int code) {
        String call = function.name();
        CudaException e = CudaException.of(call, code);
        CudaError error = CudaError.of(code);
        if (error == CudaError.NOT_PERMITTED || error == CudaError.NOT_SUPPORTED || error == CudaError.INVALID_VALUE
                || error == CudaError.SYSTEM_NOT_READY) {
            return new CudaException(call, code, e.errorName(), e.description() + "; fabric handles need the IMEX"
                    + " service running (nvidia-imex) and an IMEX channel this process can open"
                    + " (/dev/nvidia-caps-imex-channels/channel0); without them use POSIX file descriptors");
        }
        return e;
    }

    /** The value of a POSIX fd passed as {@code void*}, as {@code cuMem*ImportFromShareableHandle} expects it. */
    @SuppressWarnings("restricted") // not dereferenced: the driver reads the pointer's value as the descriptor
    static MemorySegment fdAsPointer(int fd) {
        if (fd < 0) {
            throw new IllegalArgumentException("not a file descriptor: " + fd);
        }
        return MemorySegment.ofAddress(fd);
    }
}
