package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of device and pinned host memory: allocation, copies, memsets, host registration: for each
 * {@link CudaFunction} of the area, a raw call named as its export, which returns the {@code CUresult}, and a checked
 * call named after its API ({@code cuMemAlloc_v2}: {@code memAlloc}), which throws the function's
 * {@linkplain CudaFunction#failure failure} unless it returns {@code CUDA_SUCCESS}. Each invokes the
 * {@code static final} handle of a holder class of its own with {@code invokeExact}, linked on the first call or by
 * {@link Prelink}.
 */
public final class MemoryCalls {
    private MemoryCalls() {}

    private static final class MemGetInfo {
        static final MethodHandle H = CudaFunction.cuMemGetInfo_v2.link();
    }

    /** {@code CUresult cuMemGetInfo(size_t *free, size_t *total)} */
    public static int cuMemGetInfo_v2(MemorySegment free, MemorySegment total) {
        try {
            return (int) MemGetInfo.H.invokeExact(free, total);
        } catch (Throwable t) {
            throw CudaFunction.cuMemGetInfo_v2.unexpected(t);
        }
    }

    /** {@link #cuMemGetInfo_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memGetInfo(MemorySegment free, MemorySegment total) {
        CudaFunction.cuMemGetInfo_v2.check(cuMemGetInfo_v2(free, total));
    }

    private static final class MemAlloc {
        static final MethodHandle H = CudaFunction.cuMemAlloc_v2.link();
    }

    /** {@code CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)} */
    public static int cuMemAlloc_v2(MemorySegment dptr, long bytesize) {
        try {
            return (int) MemAlloc.H.invokeExact(dptr, bytesize);
        } catch (Throwable t) {
            throw CudaFunction.cuMemAlloc_v2.unexpected(t);
        }
    }

    /** {@link #cuMemAlloc_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memAlloc(MemorySegment dptr, long bytesize) {
        CudaFunction.cuMemAlloc_v2.check(cuMemAlloc_v2(dptr, bytesize));
    }

    private static final class MemFree {
        static final MethodHandle H = CudaFunction.cuMemFree_v2.link();
    }

    /** {@code CUresult cuMemFree(CUdeviceptr dptr)} */
    public static int cuMemFree_v2(long dptr) {
        try {
            return (int) MemFree.H.invokeExact(dptr);
        } catch (Throwable t) {
            throw CudaFunction.cuMemFree_v2.unexpected(t);
        }
    }

    /** {@link #cuMemFree_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memFree(long dptr) {
        CudaFunction.cuMemFree_v2.check(cuMemFree_v2(dptr));
    }

    private static final class MemGetAddressRange {
        static final MethodHandle H = CudaFunction.cuMemGetAddressRange_v2.link();
    }

    /** {@code CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)} */
    public static int cuMemGetAddressRange_v2(MemorySegment pbase, MemorySegment psize, long dptr) {
        try {
            return (int) MemGetAddressRange.H.invokeExact(pbase, psize, dptr);
        } catch (Throwable t) {
            throw CudaFunction.cuMemGetAddressRange_v2.unexpected(t);
        }
    }

    /** {@link #cuMemGetAddressRange_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memGetAddressRange(MemorySegment pbase, MemorySegment psize, long dptr) {
        CudaFunction.cuMemGetAddressRange_v2.check(cuMemGetAddressRange_v2(pbase, psize, dptr));
    }

    private static final class MemHostAlloc {
        static final MethodHandle H = CudaFunction.cuMemHostAlloc.link();
    }

    /** {@code CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)} */
    public static int cuMemHostAlloc(MemorySegment pp, long bytesize, int flags) {
        try {
            return (int) MemHostAlloc.H.invokeExact(pp, bytesize, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemHostAlloc.unexpected(t);
        }
    }

    /** {@link #cuMemHostAlloc}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memHostAlloc(MemorySegment pp, long bytesize, int flags) {
        CudaFunction.cuMemHostAlloc.check(cuMemHostAlloc(pp, bytesize, flags));
    }

    private static final class MemFreeHost {
        static final MethodHandle H = CudaFunction.cuMemFreeHost.link();
    }

    /** {@code CUresult cuMemFreeHost(void *p)} */
    public static int cuMemFreeHost(MemorySegment p) {
        try {
            return (int) MemFreeHost.H.invokeExact(p);
        } catch (Throwable t) {
            throw CudaFunction.cuMemFreeHost.unexpected(t);
        }
    }

    /** {@link #cuMemFreeHost}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memFreeHost(MemorySegment p) {
        CudaFunction.cuMemFreeHost.check(cuMemFreeHost(p));
    }

    private static final class MemcpyHtoD {
        static final MethodHandle H = CudaFunction.cuMemcpyHtoD_v2.link();
    }

    /** {@code CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)} */
    public static int cuMemcpyHtoD_v2(long dstDevice, MemorySegment srcHost, long byteCount) {
        try {
            return (int) MemcpyHtoD.H.invokeExact(dstDevice, srcHost, byteCount);
        } catch (Throwable t) {
            throw CudaFunction.cuMemcpyHtoD_v2.unexpected(t);
        }
    }

    /** {@link #cuMemcpyHtoD_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memcpyHtoD(long dstDevice, MemorySegment srcHost, long byteCount) {
        CudaFunction.cuMemcpyHtoD_v2.check(cuMemcpyHtoD_v2(dstDevice, srcHost, byteCount));
    }

    private static final class MemcpyDtoH {
        static final MethodHandle H = CudaFunction.cuMemcpyDtoH_v2.link();
    }

    /** {@code CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)} */
    public static int cuMemcpyDtoH_v2(MemorySegment dstHost, long srcDevice, long byteCount) {
        try {
            return (int) MemcpyDtoH.H.invokeExact(dstHost, srcDevice, byteCount);
        } catch (Throwable t) {
            throw CudaFunction.cuMemcpyDtoH_v2.unexpected(t);
        }
    }

    /** {@link #cuMemcpyDtoH_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memcpyDtoH(MemorySegment dstHost, long srcDevice, long byteCount) {
        CudaFunction.cuMemcpyDtoH_v2.check(cuMemcpyDtoH_v2(dstHost, srcDevice, byteCount));
    }

    private static final class MemcpyDtoD {
        static final MethodHandle H = CudaFunction.cuMemcpyDtoD_v2.link();
    }

    /** {@code CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)} */
    public static int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long byteCount) {
        try {
            return (int) MemcpyDtoD.H.invokeExact(dstDevice, srcDevice, byteCount);
        } catch (Throwable t) {
            throw CudaFunction.cuMemcpyDtoD_v2.unexpected(t);
        }
    }

    /** {@link #cuMemcpyDtoD_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memcpyDtoD(long dstDevice, long srcDevice, long byteCount) {
        CudaFunction.cuMemcpyDtoD_v2.check(cuMemcpyDtoD_v2(dstDevice, srcDevice, byteCount));
    }

    private static final class MemcpyHtoDAsync {
        static final MethodHandle H = CudaFunction.cuMemcpyHtoDAsync_v2.link();
    }

    /**
     * {@code CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream
     * hStream)}
     */
    public static int cuMemcpyHtoDAsync_v2(long dstDevice, MemorySegment srcHost, long byteCount,
                                           MemorySegment hStream) {
        try {
            return (int) MemcpyHtoDAsync.H.invokeExact(dstDevice, srcHost, byteCount, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuMemcpyHtoDAsync_v2.unexpected(t);
        }
    }

    /** {@link #cuMemcpyHtoDAsync_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memcpyHtoDAsync(long dstDevice, MemorySegment srcHost, long byteCount, MemorySegment hStream) {
        CudaFunction.cuMemcpyHtoDAsync_v2.check(cuMemcpyHtoDAsync_v2(dstDevice, srcHost, byteCount, hStream));
    }

    private static final class MemcpyDtoHAsync {
        static final MethodHandle H = CudaFunction.cuMemcpyDtoHAsync_v2.link();
    }

    /** {@code CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)} */
    public static int cuMemcpyDtoHAsync_v2(MemorySegment dstHost, long srcDevice, long byteCount,
                                           MemorySegment hStream) {
        try {
            return (int) MemcpyDtoHAsync.H.invokeExact(dstHost, srcDevice, byteCount, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuMemcpyDtoHAsync_v2.unexpected(t);
        }
    }

    /** {@link #cuMemcpyDtoHAsync_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memcpyDtoHAsync(MemorySegment dstHost, long srcDevice, long byteCount, MemorySegment hStream) {
        CudaFunction.cuMemcpyDtoHAsync_v2.check(cuMemcpyDtoHAsync_v2(dstHost, srcDevice, byteCount, hStream));
    }

    private static final class MemcpyDtoDAsync {
        static final MethodHandle H = CudaFunction.cuMemcpyDtoDAsync_v2.link();
    }

    /**
     * {@code CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream
     * hStream)}
     */
    public static int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long byteCount, MemorySegment hStream) {
        try {
            return (int) MemcpyDtoDAsync.H.invokeExact(dstDevice, srcDevice, byteCount, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuMemcpyDtoDAsync_v2.unexpected(t);
        }
    }

    /** {@link #cuMemcpyDtoDAsync_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memcpyDtoDAsync(long dstDevice, long srcDevice, long byteCount, MemorySegment hStream) {
        CudaFunction.cuMemcpyDtoDAsync_v2.check(cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, byteCount, hStream));
    }

    private static final class MemsetD8 {
        static final MethodHandle H = CudaFunction.cuMemsetD8_v2.link();
    }

    /** {@code CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)} */
    public static int cuMemsetD8_v2(long dstDevice, int uc, long n) {
        try {
            return (int) MemsetD8.H.invokeExact(dstDevice, uc, n);
        } catch (Throwable t) {
            throw CudaFunction.cuMemsetD8_v2.unexpected(t);
        }
    }

    /** {@link #cuMemsetD8_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memsetD8(long dstDevice, int uc, long n) {
        CudaFunction.cuMemsetD8_v2.check(cuMemsetD8_v2(dstDevice, uc, n));
    }

    private static final class MemsetD8Async {
        static final MethodHandle H = CudaFunction.cuMemsetD8Async.link();
    }

    /** {@code CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)} */
    public static int cuMemsetD8Async(long dstDevice, int uc, long n, MemorySegment hStream) {
        try {
            return (int) MemsetD8Async.H.invokeExact(dstDevice, uc, n, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuMemsetD8Async.unexpected(t);
        }
    }

    /** {@link #cuMemsetD8Async}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memsetD8Async(long dstDevice, int uc, long n, MemorySegment hStream) {
        CudaFunction.cuMemsetD8Async.check(cuMemsetD8Async(dstDevice, uc, n, hStream));
    }

    private static final class MemHostRegister {
        static final MethodHandle H = CudaFunction.cuMemHostRegister_v2.link();
    }

    /** {@code CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)} */
    public static int cuMemHostRegister_v2(MemorySegment p, long bytesize, int flags) {
        try {
            return (int) MemHostRegister.H.invokeExact(p, bytesize, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemHostRegister_v2.unexpected(t);
        }
    }

    /** {@link #cuMemHostRegister_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memHostRegister(MemorySegment p, long bytesize, int flags) {
        CudaFunction.cuMemHostRegister_v2.check(cuMemHostRegister_v2(p, bytesize, flags));
    }

    private static final class MemHostUnregister {
        static final MethodHandle H = CudaFunction.cuMemHostUnregister.link();
    }

    /** {@code CUresult cuMemHostUnregister(void *p)} */
    public static int cuMemHostUnregister(MemorySegment p) {
        try {
            return (int) MemHostUnregister.H.invokeExact(p);
        } catch (Throwable t) {
            throw CudaFunction.cuMemHostUnregister.unexpected(t);
        }
    }

    /** {@link #cuMemHostUnregister}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memHostUnregister(MemorySegment p) {
        CudaFunction.cuMemHostUnregister.check(cuMemHostUnregister(p));
    }

    private static final class MemHostGetDevicePointer {
        static final MethodHandle H = CudaFunction.cuMemHostGetDevicePointer_v2.link();
    }

    /** {@code CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)} */
    public static int cuMemHostGetDevicePointer_v2(MemorySegment pdptr, MemorySegment p, int flags) {
        try {
            return (int) MemHostGetDevicePointer.H.invokeExact(pdptr, p, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuMemHostGetDevicePointer_v2.unexpected(t);
        }
    }

    /** {@link #cuMemHostGetDevicePointer_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void memHostGetDevicePointer(MemorySegment pdptr, MemorySegment p, int flags) {
        CudaFunction.cuMemHostGetDevicePointer_v2.check(cuMemHostGetDevicePointer_v2(pdptr, p, flags));
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuMemGetInfo_v2 -> MemGetInfo.H;
            case cuMemAlloc_v2 -> MemAlloc.H;
            case cuMemFree_v2 -> MemFree.H;
            case cuMemGetAddressRange_v2 -> MemGetAddressRange.H;
            case cuMemHostAlloc -> MemHostAlloc.H;
            case cuMemFreeHost -> MemFreeHost.H;
            case cuMemcpyHtoD_v2 -> MemcpyHtoD.H;
            case cuMemcpyDtoH_v2 -> MemcpyDtoH.H;
            case cuMemcpyDtoD_v2 -> MemcpyDtoD.H;
            case cuMemcpyHtoDAsync_v2 -> MemcpyHtoDAsync.H;
            case cuMemcpyDtoHAsync_v2 -> MemcpyDtoHAsync.H;
            case cuMemcpyDtoDAsync_v2 -> MemcpyDtoDAsync.H;
            case cuMemsetD8_v2 -> MemsetD8.H;
            case cuMemsetD8Async -> MemsetD8Async.H;
            case cuMemHostRegister_v2 -> MemHostRegister.H;
            case cuMemHostUnregister -> MemHostUnregister.H;
            case cuMemHostGetDevicePointer_v2 -> MemHostGetDevicePointer.H;
            default -> null;
        };
    }
}
