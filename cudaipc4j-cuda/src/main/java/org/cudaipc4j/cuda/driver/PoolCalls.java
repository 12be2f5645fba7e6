package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of stream-ordered memory pools, their allocations and their sharing: for each {@link CudaFunction}
 * of the area, a raw call named as its export, which returns the {@code CUresult}, and a checked call named after its
 * API ({@code cuMemAlloc_v2}: {@code memAlloc}), which throws the function's {@linkplain CudaFunction#failure failure}
 * unless it returns {@code CUDA_SUCCESS}. Each invokes the {@code static final} handle of a holder class of its own
 * with {@code invokeExact}, linked on the first call or by {@link Prelink}.
 */
public final class PoolCalls {
    private PoolCalls() {}

    private static final class MemPoolCreate {
        static final MethodHandle H = CudaFunction.cuMemPoolCreate.link();
    }

    /** {@code CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)} */
    public static int cuMemPoolCreate(MemorySegment pool, MemorySegment poolProps) {
        try {
            return (int) MemPoolCreate.H.invokeExact(pool, poolProps);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolCreate.unexpected(t);
        }
    }

    /** {@link #cuMemPoolCreate}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolCreate(MemorySegment pool, MemorySegment poolProps) {
        CudaFunction.cuMemPoolCreate.check(cuMemPoolCreate(pool, poolProps));
    }

    private static final class MemPoolDestroy {
        static final MethodHandle H = CudaFunction.cuMemPoolDestroy.link();
    }

    /** {@code CUresult cuMemPoolDestroy(CUmemoryPool pool)} */
    public static int cuMemPoolDestroy(MemorySegment pool) {
        try {
            return (int) MemPoolDestroy.H.invokeExact(pool);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolDestroy.unexpected(t);
        }
    }

    /** {@link #cuMemPoolDestroy}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolDestroy(MemorySegment pool) {
        CudaFunction.cuMemPoolDestroy.check(cuMemPoolDestroy(pool));
    }

    private static final class MemPoolSetAttribute {
        static final MethodHandle H = CudaFunction.cuMemPoolSetAttribute.link();
    }

    /** {@code CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)} */
    public static int cuMemPoolSetAttribute(MemorySegment pool, int attr, MemorySegment value) {
        try {
            return (int) MemPoolSetAttribute.H.invokeExact(pool, attr, value);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolSetAttribute.unexpected(t);
        }
    }

    /** {@link #cuMemPoolSetAttribute}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolSetAttribute(MemorySegment pool, int attr, MemorySegment value) {
        CudaFunction.cuMemPoolSetAttribute.check(cuMemPoolSetAttribute(pool, attr, value));
    }

    private static final class MemPoolSetAccess {
        static final MethodHandle H = CudaFunction.cuMemPoolSetAccess.link();
    }

    /** {@code CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)} */
    public static int cuMemPoolSetAccess(MemorySegment pool, MemorySegment map, long count) {
        try {
            return (int) MemPoolSetAccess.H.invokeExact(pool, map, count);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolSetAccess.unexpected(t);
        }
    }

    /** {@link #cuMemPoolSetAccess}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolSetAccess(MemorySegment pool, MemorySegment map, long count) {
        CudaFunction.cuMemPoolSetAccess.check(cuMemPoolSetAccess(pool, map, count));
    }

    private static final class MemAllocFromPoolAsync {
        static final MethodHandle H = CudaFunction.cuMemAllocFromPoolAsync.link();
    }

    /**
     * {@code CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)}
     */
    public static int cuMemAllocFromPoolAsync(MemorySegment dptr, long bytesize, MemorySegment pool,
                                              MemorySegment hStream) {
        try {
            return (int) MemAllocFromPoolAsync.H.invokeExact(dptr, bytesize, pool, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuMemAllocFromPoolAsync.unexpected(t);
        }
    }

    /** {@link #cuMemAllocFromPoolAsync}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memAllocFromPoolAsync(MemorySegment dptr, long bytesize, MemorySegment pool,
                                             MemorySegment hStream) {
        CudaFunction.cuMemAllocFromPoolAsync.check(cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream));
    }

    private static final class MemFreeAsync {
        static final MethodHandle H = CudaFunction.cuMemFreeAsync.link();
    }

    /** {@code CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)} */
    public static int cuMemFreeAsync(long dptr, MemorySegment hStream) {
        try {
            return (int) MemFreeAsync.H.invokeExact(dptr, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuMemFreeAsync.unexpected(t);
        }
    }

    /** {@link #cuMemFreeAsync}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memFreeAsync(long dptr, MemorySegment hStream) {
        CudaFunction.cuMemFreeAsync.check(cuMemFreeAsync(dptr, hStream));
    }

    private static final class MemPoolExportToShareableHandle {
        static final MethodHandle H = CudaFunction.cuMemPoolExportToShareableHandle.link();
    }

    /**
     * {@code CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType
     * handleType, unsigned long long flags)}
     */
    public static int cuMemPoolExportToShareableHandle(MemorySegment handleOut, MemorySegment pool, int handleType,
                                                       long flags) {
        try {
            return (int) MemPoolExportToShareableHandle.H.invokeExact(handleOut, pool, handleType, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolExportToShareableHandle.unexpected(t);
        }
    }

    /** {@link #cuMemPoolExportToShareableHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolExportToShareableHandle(MemorySegment handleOut, MemorySegment pool, int handleType,
                                                      long flags) {
        CudaFunction.cuMemPoolExportToShareableHandle.check(cuMemPoolExportToShareableHandle(handleOut, pool,
                handleType, flags));
    }

    private static final class MemPoolImportFromShareableHandle {
        static final MethodHandle H = CudaFunction.cuMemPoolImportFromShareableHandle.link();
    }

    /**
     * {@code CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
     * CUmemAllocationHandleType handleType, unsigned long long flags)}
     */
    public static int cuMemPoolImportFromShareableHandle(MemorySegment poolOut, MemorySegment handle, int handleType,
                                                         long flags) {
        try {
            return (int) MemPoolImportFromShareableHandle.H.invokeExact(poolOut, handle, handleType, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolImportFromShareableHandle.unexpected(t);
        }
    }

    /** {@link #cuMemPoolImportFromShareableHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolImportFromShareableHandle(MemorySegment poolOut, MemorySegment handle, int handleType,
                                                        long flags) {
        CudaFunction.cuMemPoolImportFromShareableHandle.check(cuMemPoolImportFromShareableHandle(poolOut, handle,
                handleType, flags));
    }

    private static final class MemPoolExportPointer {
        static final MethodHandle H = CudaFunction.cuMemPoolExportPointer.link();
    }

    /** {@code CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)} */
    public static int cuMemPoolExportPointer(MemorySegment shareDataOut, long ptr) {
        try {
            return (int) MemPoolExportPointer.H.invokeExact(shareDataOut, ptr);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolExportPointer.unexpected(t);
        }
    }

    /** {@link #cuMemPoolExportPointer}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolExportPointer(MemorySegment shareDataOut, long ptr) {
        CudaFunction.cuMemPoolExportPointer.check(cuMemPoolExportPointer(shareDataOut, ptr));
    }

    private static final class MemPoolImportPointer {
        static final MethodHandle H = CudaFunction.cuMemPoolImportPointer.link();
    }

    /**
     * {@code CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData
     * *shareData)}
     */
    public static int cuMemPoolImportPointer(MemorySegment ptrOut, MemorySegment pool, MemorySegment shareData) {
        try {
            return (int) MemPoolImportPointer.H.invokeExact(ptrOut, pool, shareData);
        } catch (Throwable t) {
            throw CudaFunction.cuMemPoolImportPointer.unexpected(t);
        }
    }

    /** {@link #cuMemPoolImportPointer}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memPoolImportPointer(MemorySegment ptrOut, MemorySegment pool, MemorySegment shareData) {
        CudaFunction.cuMemPoolImportPointer.check(cuMemPoolImportPointer(ptrOut, pool, shareData));
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuMemPoolCreate -> MemPoolCreate.H;
            case cuMemPoolDestroy -> MemPoolDestroy.H;
            case cuMemPoolSetAttribute -> MemPoolSetAttribute.H;
            case cuMemPoolSetAccess -> MemPoolSetAccess.H;
            case cuMemAllocFromPoolAsync -> MemAllocFromPoolAsync.H;
            case cuMemFreeAsync -> MemFreeAsync.H;
            case cuMemPoolExportToShareableHandle -> MemPoolExportToShareableHandle.H;
            case cuMemPoolImportFromShareableHandle -> MemPoolImportFromShareableHandle.H;
            case cuMemPoolExportPointer -> MemPoolExportPointer.H;
            case cuMemPoolImportPointer -> MemPoolImportPointer.H;
            default -> null;
        };
    }
}
