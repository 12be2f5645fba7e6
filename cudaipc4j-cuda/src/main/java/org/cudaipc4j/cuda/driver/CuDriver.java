package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Raw CUDA driver calls: one static method per libcuda function, named exactly as the exported symbol, returning
 * the {@code CUresult} as an {@code int} ({@code 0} is {@code CUDA_SUCCESS}). Out-parameters are
 * {@link MemorySegment}s the caller allocates; handles ({@code CUcontext}, {@code CUstream}, ...) are
 * {@link MemorySegment} addresses; device pointers are {@code long}.
 *
 * <p>Each function's downcall handle lives in its own holder class, linked on first use from its descriptor in
 * {@link CuSymbols#TABLE} and called with {@code invokeExact}. A missing library or function throws the exception
 * the typed layer {@linkplain CudaLibrary#reportFailuresWith installed} for it.
 *
 * <p>The driver binds a context to the calling OS thread: call from platform threads, with the context current.
 */
public final class CuDriver {
    private CuDriver() {}

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("unexpected checked exception from a CUDA downcall", t);
    }

    /** {@code CUresult cuGetErrorName(CUresult error, const char **pStr)} */
    public static int cuGetErrorName(int error, MemorySegment pStr) {
        try {
            return (int) cuGetErrorName.HANDLE.invokeExact(error, pStr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuGetErrorName {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuGetErrorName");
    }

    /** {@code CUresult cuGetErrorString(CUresult error, const char **pStr)} */
    public static int cuGetErrorString(int error, MemorySegment pStr) {
        try {
            return (int) cuGetErrorString.HANDLE.invokeExact(error, pStr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuGetErrorString {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuGetErrorString");
    }

    /** {@code CUresult cuInit(unsigned int Flags)} */
    public static int cuInit(int flags) {
        try {
            return (int) cuInit.HANDLE.invokeExact(flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuInit {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuInit");
    }

    /** {@code CUresult cuDriverGetVersion(int *driverVersion)} */
    public static int cuDriverGetVersion(MemorySegment driverVersion) {
        try {
            return (int) cuDriverGetVersion.HANDLE.invokeExact(driverVersion);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDriverGetVersion {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDriverGetVersion");
    }

    /** {@code CUresult cuDeviceGetCount(int *count)} */
    public static int cuDeviceGetCount(MemorySegment count) {
        try {
            return (int) cuDeviceGetCount.HANDLE.invokeExact(count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceGetCount {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceGetCount");
    }

    /** {@code CUresult cuDeviceGet(CUdevice *device, int ordinal)} */
    public static int cuDeviceGet(MemorySegment device, int ordinal) {
        try {
            return (int) cuDeviceGet.HANDLE.invokeExact(device, ordinal);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceGet {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceGet");
    }

    /** {@code CUresult cuDeviceGetName(char *name, int len, CUdevice dev)} */
    public static int cuDeviceGetName(MemorySegment name, int len, int dev) {
        try {
            return (int) cuDeviceGetName.HANDLE.invokeExact(name, len, dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceGetName {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceGetName");
    }

    /** {@code CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)} */
    public static int cuDeviceGetAttribute(MemorySegment pi, int attrib, int dev) {
        try {
            return (int) cuDeviceGetAttribute.HANDLE.invokeExact(pi, attrib, dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceGetAttribute {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceGetAttribute");
    }

    /** {@code CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)} */
    public static int cuDeviceTotalMem_v2(MemorySegment bytes, int dev) {
        try {
            return (int) cuDeviceTotalMem_v2.HANDLE.invokeExact(bytes, dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceTotalMem_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceTotalMem_v2");
    }

    /** {@code CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)} */
    public static int cuDeviceGetPCIBusId(MemorySegment pciBusId, int len, int dev) {
        try {
            return (int) cuDeviceGetPCIBusId.HANDLE.invokeExact(pciBusId, len, dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceGetPCIBusId {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceGetPCIBusId");
    }

    /** {@code CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)} */
    public static int cuDeviceCanAccessPeer(MemorySegment canAccessPeer, int dev, int peerDev) {
        try {
            return (int) cuDeviceCanAccessPeer.HANDLE.invokeExact(canAccessPeer, dev, peerDev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceCanAccessPeer {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceCanAccessPeer");
    }

    /** {@code CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)} */
    public static int cuDevicePrimaryCtxRetain(MemorySegment pctx, int dev) {
        try {
            return (int) cuDevicePrimaryCtxRetain.HANDLE.invokeExact(pctx, dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDevicePrimaryCtxRetain {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDevicePrimaryCtxRetain");
    }

    /** {@code CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)} */
    public static int cuDevicePrimaryCtxGetState(int dev, MemorySegment flags, MemorySegment active) {
        try {
            return (int) cuDevicePrimaryCtxGetState.HANDLE.invokeExact(dev, flags, active);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDevicePrimaryCtxGetState {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDevicePrimaryCtxGetState");
    }

    /** {@code CUresult cuDevicePrimaryCtxRelease(CUdevice dev)} */
    public static int cuDevicePrimaryCtxRelease_v2(int dev) {
        try {
            return (int) cuDevicePrimaryCtxRelease_v2.HANDLE.invokeExact(dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDevicePrimaryCtxRelease_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDevicePrimaryCtxRelease_v2");
    }

    /** {@code CUresult cuCtxSetCurrent(CUcontext ctx)} */
    public static int cuCtxSetCurrent(MemorySegment ctx) {
        try {
            return (int) cuCtxSetCurrent.HANDLE.invokeExact(ctx);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuCtxSetCurrent {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuCtxSetCurrent");
    }

    /** {@code CUresult cuCtxGetCurrent(CUcontext *pctx)} */
    public static int cuCtxGetCurrent(MemorySegment pctx) {
        try {
            return (int) cuCtxGetCurrent.HANDLE.invokeExact(pctx);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuCtxGetCurrent {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuCtxGetCurrent");
    }

    /** {@code CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)} */
    public static int cuCtxEnablePeerAccess(MemorySegment peerContext, int flags) {
        try {
            return (int) cuCtxEnablePeerAccess.HANDLE.invokeExact(peerContext, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuCtxEnablePeerAccess {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuCtxEnablePeerAccess");
    }

    /** {@code CUresult cuCtxSynchronize(void)} */
    public static int cuCtxSynchronize() {
        try {
            return (int) cuCtxSynchronize.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuCtxSynchronize {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuCtxSynchronize");
    }

    /** {@code CUresult cuMemGetInfo(size_t *free, size_t *total)} */
    public static int cuMemGetInfo_v2(MemorySegment free, MemorySegment total) {
        try {
            return (int) cuMemGetInfo_v2.HANDLE.invokeExact(free, total);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemGetInfo_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemGetInfo_v2");
    }

    /** {@code CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)} */
    public static int cuMemAlloc_v2(MemorySegment dptr, long bytesize) {
        try {
            return (int) cuMemAlloc_v2.HANDLE.invokeExact(dptr, bytesize);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemAlloc_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemAlloc_v2");
    }

    /** {@code CUresult cuMemFree(CUdeviceptr dptr)} */
    public static int cuMemFree_v2(long dptr) {
        try {
            return (int) cuMemFree_v2.HANDLE.invokeExact(dptr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemFree_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemFree_v2");
    }

    /** {@code CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)} */
    public static int cuMemGetAddressRange_v2(MemorySegment pbase, MemorySegment psize, long dptr) {
        try {
            return (int) cuMemGetAddressRange_v2.HANDLE.invokeExact(pbase, psize, dptr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemGetAddressRange_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemGetAddressRange_v2");
    }

    /** {@code CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)} */
    public static int cuMemHostAlloc(MemorySegment pp, long bytesize, int flags) {
        try {
            return (int) cuMemHostAlloc.HANDLE.invokeExact(pp, bytesize, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemHostAlloc {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemHostAlloc");
    }

    /** {@code CUresult cuMemFreeHost(void *p)} */
    public static int cuMemFreeHost(MemorySegment p) {
        try {
            return (int) cuMemFreeHost.HANDLE.invokeExact(p);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemFreeHost {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemFreeHost");
    }

    /** {@code CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)} */
    public static int cuMemcpyHtoD_v2(long dstDevice, MemorySegment srcHost, long byteCount) {
        try {
            return (int) cuMemcpyHtoD_v2.HANDLE.invokeExact(dstDevice, srcHost, byteCount);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemcpyHtoD_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemcpyHtoD_v2");
    }

    /** {@code CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)} */
    public static int cuMemcpyDtoH_v2(MemorySegment dstHost, long srcDevice, long byteCount) {
        try {
            return (int) cuMemcpyDtoH_v2.HANDLE.invokeExact(dstHost, srcDevice, byteCount);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemcpyDtoH_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemcpyDtoH_v2");
    }

    /** {@code CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)} */
    public static int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long byteCount) {
        try {
            return (int) cuMemcpyDtoD_v2.HANDLE.invokeExact(dstDevice, srcDevice, byteCount);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemcpyDtoD_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemcpyDtoD_v2");
    }

    /** {@code CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)} */
    public static int cuMemcpyHtoDAsync_v2(long dstDevice, MemorySegment srcHost, long byteCount, MemorySegment hStream) {
        try {
            return (int) cuMemcpyHtoDAsync_v2.HANDLE.invokeExact(dstDevice, srcHost, byteCount, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemcpyHtoDAsync_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemcpyHtoDAsync_v2");
    }

    /** {@code CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)} */
    public static int cuMemcpyDtoHAsync_v2(MemorySegment dstHost, long srcDevice, long byteCount, MemorySegment hStream) {
        try {
            return (int) cuMemcpyDtoHAsync_v2.HANDLE.invokeExact(dstHost, srcDevice, byteCount, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemcpyDtoHAsync_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemcpyDtoHAsync_v2");
    }

    /** {@code CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)} */
    public static int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long byteCount, MemorySegment hStream) {
        try {
            return (int) cuMemcpyDtoDAsync_v2.HANDLE.invokeExact(dstDevice, srcDevice, byteCount, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemcpyDtoDAsync_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemcpyDtoDAsync_v2");
    }

    /**
     * {@code CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)}
     *
     * @param uc the byte value, zero-extended ({@code value & 0xff})
     */
    public static int cuMemsetD8_v2(long dstDevice, int uc, long n) {
        try {
            return (int) cuMemsetD8_v2.HANDLE.invokeExact(dstDevice, uc, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemsetD8_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemsetD8_v2");
    }

    /**
     * {@code CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)}
     *
     * @param uc the byte value, zero-extended ({@code value & 0xff})
     */
    public static int cuMemsetD8Async(long dstDevice, int uc, long n, MemorySegment hStream) {
        try {
            return (int) cuMemsetD8Async.HANDLE.invokeExact(dstDevice, uc, n, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemsetD8Async {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemsetD8Async");
    }

    /** {@code CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)} */
    public static int cuStreamCreate(MemorySegment phStream, int flags) {
        try {
            return (int) cuStreamCreate.HANDLE.invokeExact(phStream, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamCreate {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamCreate");
    }

    /** {@code CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)} */
    public static int cuStreamWaitEvent(MemorySegment hStream, MemorySegment hEvent, int flags) {
        try {
            return (int) cuStreamWaitEvent.HANDLE.invokeExact(hStream, hEvent, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamWaitEvent {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamWaitEvent");
    }

    /** {@code CUresult cuStreamSynchronize(CUstream hStream)} */
    public static int cuStreamSynchronize(MemorySegment hStream) {
        try {
            return (int) cuStreamSynchronize.HANDLE.invokeExact(hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamSynchronize {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamSynchronize");
    }

    /** {@code CUresult cuStreamDestroy(CUstream hStream)} */
    public static int cuStreamDestroy_v2(MemorySegment hStream) {
        try {
            return (int) cuStreamDestroy_v2.HANDLE.invokeExact(hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamDestroy_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamDestroy_v2");
    }

    /** {@code CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)} */
    public static int cuEventCreate(MemorySegment phEvent, int flags) {
        try {
            return (int) cuEventCreate.HANDLE.invokeExact(phEvent, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuEventCreate {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuEventCreate");
    }

    /** {@code CUresult cuEventRecord(CUevent hEvent, CUstream hStream)} */
    public static int cuEventRecord(MemorySegment hEvent, MemorySegment hStream) {
        try {
            return (int) cuEventRecord.HANDLE.invokeExact(hEvent, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuEventRecord {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuEventRecord");
    }

    /** {@code CUresult cuEventSynchronize(CUevent hEvent)} */
    public static int cuEventSynchronize(MemorySegment hEvent) {
        try {
            return (int) cuEventSynchronize.HANDLE.invokeExact(hEvent);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuEventSynchronize {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuEventSynchronize");
    }

    /** {@code CUresult cuStreamQuery(CUstream hStream)} */
    public static int cuStreamQuery(MemorySegment hStream) {
        try {
            return (int) cuStreamQuery.HANDLE.invokeExact(hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamQuery {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamQuery");
    }

    /** {@code CUresult cuEventQuery(CUevent hEvent)} */
    public static int cuEventQuery(MemorySegment hEvent) {
        try {
            return (int) cuEventQuery.HANDLE.invokeExact(hEvent);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuEventQuery {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuEventQuery");
    }

    /** {@code CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)} */
    public static int cuEventElapsedTime_v2(MemorySegment pMilliseconds, MemorySegment hStart, MemorySegment hEnd) {
        try {
            return (int) cuEventElapsedTime_v2.HANDLE.invokeExact(pMilliseconds, hStart, hEnd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuEventElapsedTime_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuEventElapsedTime_v2");
    }

    /** {@code CUresult cuEventDestroy(CUevent hEvent)} */
    public static int cuEventDestroy_v2(MemorySegment hEvent) {
        try {
            return (int) cuEventDestroy_v2.HANDLE.invokeExact(hEvent);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuEventDestroy_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuEventDestroy_v2");
    }

    /** {@code CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)} */
    public static int cuIpcGetMemHandle(MemorySegment pHandle, long dptr) {
        try {
            return (int) cuIpcGetMemHandle.HANDLE.invokeExact(pHandle, dptr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuIpcGetMemHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuIpcGetMemHandle");
    }

    /**
     * {@code CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)}
     *
     * @param handle 64 bytes, passed by value ({@link CuSymbols#CU_IPC_MEM_HANDLE})
     */
    public static int cuIpcOpenMemHandle_v2(MemorySegment pdptr, MemorySegment handle, int flags) {
        try {
            return (int) cuIpcOpenMemHandle_v2.HANDLE.invokeExact(pdptr, handle, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuIpcOpenMemHandle_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuIpcOpenMemHandle_v2");
    }

    /** {@code CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)} */
    public static int cuIpcCloseMemHandle(long dptr) {
        try {
            return (int) cuIpcCloseMemHandle.HANDLE.invokeExact(dptr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuIpcCloseMemHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuIpcCloseMemHandle");
    }

    /** {@code CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)} */
    public static int cuIpcGetEventHandle(MemorySegment pHandle, MemorySegment event) {
        try {
            return (int) cuIpcGetEventHandle.HANDLE.invokeExact(pHandle, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuIpcGetEventHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuIpcGetEventHandle");
    }

    /**
     * {@code CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)}
     *
     * @param handle 64 bytes, passed by value ({@link CuSymbols#CU_IPC_EVENT_HANDLE})
     */
    public static int cuIpcOpenEventHandle(MemorySegment phEvent, MemorySegment handle) {
        try {
            return (int) cuIpcOpenEventHandle.HANDLE.invokeExact(phEvent, handle);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuIpcOpenEventHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuIpcOpenEventHandle");
    }

    /** {@code CUresult cuModuleLoadData(CUmodule *module, const void *image)} */
    public static int cuModuleLoadData(MemorySegment module, MemorySegment image) {
        try {
            return (int) cuModuleLoadData.HANDLE.invokeExact(module, image);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuModuleLoadData {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuModuleLoadData");
    }

    /** {@code CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)} */
    public static int cuModuleGetFunction(MemorySegment hfunc, MemorySegment hmod, MemorySegment name) {
        try {
            return (int) cuModuleGetFunction.HANDLE.invokeExact(hfunc, hmod, name);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuModuleGetFunction {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuModuleGetFunction");
    }

    /** {@code CUresult cuModuleUnload(CUmodule hmod)} */
    public static int cuModuleUnload(MemorySegment hmod) {
        try {
            return (int) cuModuleUnload.HANDLE.invokeExact(hmod);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuModuleUnload {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuModuleUnload");
    }

    /** {@code CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)} */
    public static int cuLaunchKernel(MemorySegment f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ, int sharedMemBytes, MemorySegment hStream, MemorySegment kernelParams, MemorySegment extra) {
        try {
            return (int) cuLaunchKernel.HANDLE.invokeExact(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuLaunchKernel {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuLaunchKernel");
    }

    /** {@code CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)} */
    public static int cuOccupancyMaxActiveBlocksPerMultiprocessor(MemorySegment numBlocks, MemorySegment func, int blockSize, long dynamicSMemSize) {
        try {
            return (int) cuOccupancyMaxActiveBlocksPerMultiprocessor.HANDLE.invokeExact(numBlocks, func, blockSize, dynamicSMemSize);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuOccupancyMaxActiveBlocksPerMultiprocessor {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    }

    /** {@code CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)} */
    public static int cuFuncGetAttribute(MemorySegment pi, int attrib, MemorySegment hfunc) {
        try {
            return (int) cuFuncGetAttribute.HANDLE.invokeExact(pi, attrib, hfunc);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuFuncGetAttribute {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuFuncGetAttribute");
    }

    /** {@code CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)} */
    public static int cuDeviceGetUuid_v2(MemorySegment uuid, int dev) {
        try {
            return (int) cuDeviceGetUuid_v2.HANDLE.invokeExact(uuid, dev);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuDeviceGetUuid_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuDeviceGetUuid_v2");
    }
    /** {@code CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)} */
    public static int cuMemHostRegister_v2(MemorySegment p, long bytesize, int flags) {
        try {
            return (int) cuMemHostRegister_v2.HANDLE.invokeExact(p, bytesize, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemHostRegister_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemHostRegister_v2");
    }
    /** {@code CUresult cuMemHostUnregister(void *p)} */
    public static int cuMemHostUnregister(MemorySegment p) {
        try {
            return (int) cuMemHostUnregister.HANDLE.invokeExact(p);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemHostUnregister {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemHostUnregister");
    }
    /** {@code CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)} */
    public static int cuMemHostGetDevicePointer_v2(MemorySegment pdptr, MemorySegment p, int flags) {
        try {
            return (int) cuMemHostGetDevicePointer_v2.HANDLE.invokeExact(pdptr, p, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemHostGetDevicePointer_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemHostGetDevicePointer_v2");
    }
    /** {@code CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option)} */
    public static int cuMemGetAllocationGranularity(MemorySegment granularity, MemorySegment prop, int option) {
        try {
            return (int) cuMemGetAllocationGranularity.HANDLE.invokeExact(granularity, prop, option);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemGetAllocationGranularity {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemGetAllocationGranularity");
    }
    /** {@code CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)} */
    public static int cuMemCreate(MemorySegment handle, long size, MemorySegment prop, long flags) {
        try {
            return (int) cuMemCreate.HANDLE.invokeExact(handle, size, prop, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemCreate {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemCreate");
    }
    /** {@code CUresult cuMemRelease(CUmemGenericAllocationHandle handle)} */
    public static int cuMemRelease(long handle) {
        try {
            return (int) cuMemRelease.HANDLE.invokeExact(handle);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemRelease {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemRelease");
    }
    /** {@code CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)} */
    public static int cuMemAddressReserve(MemorySegment ptr, long size, long alignment, long addr, long flags) {
        try {
            return (int) cuMemAddressReserve.HANDLE.invokeExact(ptr, size, alignment, addr, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemAddressReserve {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemAddressReserve");
    }
    /** {@code CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)} */
    public static int cuMemAddressFree(long ptr, long size) {
        try {
            return (int) cuMemAddressFree.HANDLE.invokeExact(ptr, size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemAddressFree {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemAddressFree");
    }
    /** {@code CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)} */
    public static int cuMemMap(long ptr, long size, long offset, long handle, long flags) {
        try {
            return (int) cuMemMap.HANDLE.invokeExact(ptr, size, offset, handle, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemMap {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemMap");
    }
    /** {@code CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)} */
    public static int cuMemUnmap(long ptr, long size) {
        try {
            return (int) cuMemUnmap.HANDLE.invokeExact(ptr, size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemUnmap {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemUnmap");
    }
    /** {@code CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)} */
    public static int cuMemSetAccess(long ptr, long size, MemorySegment desc, long count) {
        try {
            return (int) cuMemSetAccess.HANDLE.invokeExact(ptr, size, desc, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemSetAccess {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemSetAccess");
    }
    /** {@code CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags)} */
    public static int cuMemExportToShareableHandle(MemorySegment shareableHandle, long handle, int handleType, long flags) {
        try {
            return (int) cuMemExportToShareableHandle.HANDLE.invokeExact(shareableHandle, handle, handleType, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemExportToShareableHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemExportToShareableHandle");
    }
    /** {@code CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType)} */
    public static int cuMemImportFromShareableHandle(MemorySegment handle, MemorySegment osHandle, int shHandleType) {
        try {
            return (int) cuMemImportFromShareableHandle.HANDLE.invokeExact(handle, osHandle, shHandleType);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemImportFromShareableHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemImportFromShareableHandle");
    }
    /** {@code CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)} */
    public static int cuMemPoolCreate(MemorySegment pool, MemorySegment poolProps) {
        try {
            return (int) cuMemPoolCreate.HANDLE.invokeExact(pool, poolProps);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolCreate {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolCreate");
    }
    /** {@code CUresult cuMemPoolDestroy(CUmemoryPool pool)} */
    public static int cuMemPoolDestroy(MemorySegment pool) {
        try {
            return (int) cuMemPoolDestroy.HANDLE.invokeExact(pool);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolDestroy {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolDestroy");
    }
    /** {@code CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)} */
    public static int cuMemPoolSetAttribute(MemorySegment pool, int attr, MemorySegment value) {
        try {
            return (int) cuMemPoolSetAttribute.HANDLE.invokeExact(pool, attr, value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolSetAttribute {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolSetAttribute");
    }
    /** {@code CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)} */
    public static int cuMemPoolSetAccess(MemorySegment pool, MemorySegment map, long count) {
        try {
            return (int) cuMemPoolSetAccess.HANDLE.invokeExact(pool, map, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolSetAccess {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolSetAccess");
    }
    /** {@code CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)} */
    public static int cuMemAllocFromPoolAsync(MemorySegment dptr, long bytesize, MemorySegment pool, MemorySegment hStream) {
        try {
            return (int) cuMemAllocFromPoolAsync.HANDLE.invokeExact(dptr, bytesize, pool, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemAllocFromPoolAsync {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemAllocFromPoolAsync");
    }
    /** {@code CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)} */
    public static int cuMemFreeAsync(long dptr, MemorySegment hStream) {
        try {
            return (int) cuMemFreeAsync.HANDLE.invokeExact(dptr, hStream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemFreeAsync {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemFreeAsync");
    }
    /** {@code CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags)} */
    public static int cuMemPoolExportToShareableHandle(MemorySegment handleOut, MemorySegment pool, int handleType, long flags) {
        try {
            return (int) cuMemPoolExportToShareableHandle.HANDLE.invokeExact(handleOut, pool, handleType, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolExportToShareableHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolExportToShareableHandle");
    }
    /** {@code CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags)} */
    public static int cuMemPoolImportFromShareableHandle(MemorySegment poolOut, MemorySegment handle, int handleType, long flags) {
        try {
            return (int) cuMemPoolImportFromShareableHandle.HANDLE.invokeExact(poolOut, handle, handleType, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolImportFromShareableHandle {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolImportFromShareableHandle");
    }
    /** {@code CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)} */
    public static int cuMemPoolExportPointer(MemorySegment shareDataOut, long ptr) {
        try {
            return (int) cuMemPoolExportPointer.HANDLE.invokeExact(shareDataOut, ptr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolExportPointer {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolExportPointer");
    }
    /** {@code CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)} */
    public static int cuMemPoolImportPointer(MemorySegment ptrOut, MemorySegment pool, MemorySegment shareData) {
        try {
            return (int) cuMemPoolImportPointer.HANDLE.invokeExact(ptrOut, pool, shareData);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuMemPoolImportPointer {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuMemPoolImportPointer");
    }
    /** {@code CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)} */
    public static int cuStreamWaitValue32_v2(MemorySegment stream, long addr, int value, int flags) {
        try {
            return (int) cuStreamWaitValue32_v2.HANDLE.invokeExact(stream, addr, value, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamWaitValue32_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamWaitValue32_v2");
    }
    /** {@code CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)} */
    public static int cuStreamWriteValue32_v2(MemorySegment stream, long addr, int value, int flags) {
        try {
            return (int) cuStreamWriteValue32_v2.HANDLE.invokeExact(stream, addr, value, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final class cuStreamWriteValue32_v2 {
        static final MethodHandle HANDLE = CudaLibrary.downcall("cuStreamWriteValue32_v2");
    }
}
