package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of virtual memory management: physical allocations, address ranges, mappings and their shareable
 * handles: for each {@link CudaFunction} of the area, a raw call named as its export, which returns the
 * {@code CUresult}, and a checked call named after its API ({@code cuMemAlloc_v2}: {@code memAlloc}), which throws the
 * function's {@linkplain CudaFunction#failure failure} unless it returns {@code CUDA_SUCCESS}. Each invokes the
 * {@code static final} handle of a holder class of its own with {@code invokeExact}, linked on the first call or by
 * {@link Prelink}.
 */
public final class VmmCalls {
    private VmmCalls() {}

    private static final class MemGetAllocationGranularity {
        static final MethodHandle H = CudaFunction.cuMemGetAllocationGranularity.link();
    }

    /**
     * {@code CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
     * CUmemAllocationGranularity_flags option)}
     */
    public static int cuMemGetAllocationGranularity(MemorySegment granularity, MemorySegment prop, int option) {
        try {
            return (int) MemGetAllocationGranularity.H.invokeExact(granularity, prop, option);
        } catch (Throwable t) {
            throw CudaFunction.cuMemGetAllocationGranularity.unexpected(t);
        }
    }

    /** {@link #cuMemGetAllocationGranularity}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memGetAllocationGranularity(MemorySegment granularity, MemorySegment prop, int option) {
        CudaFunction.cuMemGetAllocationGranularity.check(cuMemGetAllocationGranularity(granularity, prop, option));
    }

    private static final class MemCreate {
        static final MethodHandle H = CudaFunction.cuMemCreate.link();
    }

    /**
     * {@code CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
     * unsigned long long flags)}
     */
    public static int cuMemCreate(MemorySegment handle, long size, MemorySegment prop, long flags) {
        try {
            return (int) MemCreate.H.invokeExact(handle, size, prop, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemCreate.unexpected(t);
        }
    }

    /** {@link #cuMemCreate}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memCreate(MemorySegment handle, long size, MemorySegment prop, long flags) {
        CudaFunction.cuMemCreate.check(cuMemCreate(handle, size, prop, flags));
    }

    private static final class MemRelease {
        static final MethodHandle H = CudaFunction.cuMemRelease.link();
    }

    /** {@code CUresult cuMemRelease(CUmemGenericAllocationHandle handle)} */
    public static int cuMemRelease(long handle) {
        try {
            return (int) MemRelease.H.invokeExact(handle);
        } catch (Throwable t) {
            throw CudaFunction.cuMemRelease.unexpected(t);
        }
    }

    /** {@link #cuMemRelease}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memRelease(long handle) {
        CudaFunction.cuMemRelease.check(cuMemRelease(handle));
    }

    private static final class MemAddressReserve {
        static final MethodHandle H = CudaFunction.cuMemAddressReserve.link();
    }

    /**
     * {@code CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned
     * long long flags)}
     */
    public static int cuMemAddressReserve(MemorySegment ptr, long size, long alignment, long addr, long flags) {
        try {
            return (int) MemAddressReserve.H.invokeExact(ptr, size, alignment, addr, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemAddressReserve.unexpected(t);
        }
    }

    /** {@link #cuMemAddressReserve}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memAddressReserve(MemorySegment ptr, long size, long alignment, long addr, long flags) {
        CudaFunction.cuMemAddressReserve.check(cuMemAddressReserve(ptr, size, alignment, addr, flags));
    }

    private static final class MemAddressFree {
        static final MethodHandle H = CudaFunction.cuMemAddressFree.link();
    }

    /** {@code CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)} */
    public static int cuMemAddressFree(long ptr, long size) {
        try {
            return (int) MemAddressFree.H.invokeExact(ptr, size);
        } catch (Throwable t) {
            throw CudaFunction.cuMemAddressFree.unexpected(t);
        }
    }

    /** {@link #cuMemAddressFree}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memAddressFree(long ptr, long size) {
        CudaFunction.cuMemAddressFree.check(cuMemAddressFree(ptr, size));
    }

    private static final class MemMap {
        static final MethodHandle H = CudaFunction.cuMemMap.link();
    }

    /**
     * {@code CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
     * unsigned long long flags)}
     */
    public static int cuMemMap(long ptr, long size, long offset, long handle, long flags) {
        try {
            return (int) MemMap.H.invokeExact(ptr, size, offset, handle, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemMap.unexpected(t);
        }
    }

    /** {@link #cuMemMap}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memMap(long ptr, long size, long offset, long handle, long flags) {
        CudaFunction.cuMemMap.check(cuMemMap(ptr, size, offset, handle, flags));
    }

    private static final class MemUnmap {
        static final MethodHandle H = CudaFunction.cuMemUnmap.link();
    }

    /** {@code CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)} */
    public static int cuMemUnmap(long ptr, long size) {
        try {
            return (int) MemUnmap.H.invokeExact(ptr, size);
        } catch (Throwable t) {
            throw CudaFunction.cuMemUnmap.unexpected(t);
        }
    }

    /** {@link #cuMemUnmap}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memUnmap(long ptr, long size) {
        CudaFunction.cuMemUnmap.check(cuMemUnmap(ptr, size));
    }

    private static final class MemSetAccess {
        static final MethodHandle H = CudaFunction.cuMemSetAccess.link();
    }

    /** {@code CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)} */
    public static int cuMemSetAccess(long ptr, long size, MemorySegment desc, long count) {
        try {
            return (int) MemSetAccess.H.invokeExact(ptr, size, desc, count);
        } catch (Throwable t) {
            throw CudaFunction.cuMemSetAccess.unexpected(t);
        }
    }

    /** {@link #cuMemSetAccess}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memSetAccess(long ptr, long size, MemorySegment desc, long count) {
        CudaFunction.cuMemSetAccess.check(cuMemSetAccess(ptr, size, desc, count));
    }

    private static final class MemExportToShareableHandle {
        static final MethodHandle H = CudaFunction.cuMemExportToShareableHandle.link();
    }

    /**
     * {@code CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
     * CUmemAllocationHandleType handleType, unsigned long long flags)}
     */
    public static int cuMemExportToShareableHandle(MemorySegment shareableHandle, long handle, int handleType,
                                                   long flags) {
        try {
            return (int) MemExportToShareableHandle.H.invokeExact(shareableHandle, handle, handleType, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemExportToShareableHandle.unexpected(t);
        }
    }

    /** {@link #cuMemExportToShareableHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memExportToShareableHandle(MemorySegment shareableHandle, long handle, int handleType,
                                                  long flags) {
        CudaFunction.cuMemExportToShareableHandle.check(cuMemExportToShareableHandle(shareableHandle, handle,
                handleType, flags));
    }

    private static final class MemImportFromShareableHandle {
        static final MethodHandle H = CudaFunction.cuMemImportFromShareableHandle.link();
    }

    /**
     * {@code CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
     * CUmemAllocationHandleType shHandleType)}
     */
    public static int cuMemImportFromShareableHandle(MemorySegment handle, MemorySegment osHandle, int shHandleType) {
        try {
            return (int) MemImportFromShareableHandle.H.invokeExact(handle, osHandle, shHandleType);
        } catch (Throwable t) {
            throw CudaFunction.cuMemImportFromShareableHandle.unexpected(t);
        }
    }

    /** {@link #cuMemImportFromShareableHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memImportFromShareableHandle(MemorySegment handle, MemorySegment osHandle, int shHandleType) {
        CudaFunction.cuMemImportFromShareableHandle.check(cuMemImportFromShareableHandle(handle, osHandle,
                shHandleType));
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuMemGetAllocationGranularity -> MemGetAllocationGranularity.H;
            case cuMemCreate -> MemCreate.H;
            case cuMemRelease -> MemRelease.H;
            case cuMemAddressReserve -> MemAddressReserve.H;
            case cuMemAddressFree -> MemAddressFree.H;
            case cuMemMap -> MemMap.H;
            case cuMemUnmap -> MemUnmap.H;
            case cuMemSetAccess -> MemSetAccess.H;
            case cuMemExportToShareableHandle -> MemExportToShareableHandle.H;
            case cuMemImportFromShareableHandle -> MemImportFromShareableHandle.H;
            default -> null;
        };
    }
}
