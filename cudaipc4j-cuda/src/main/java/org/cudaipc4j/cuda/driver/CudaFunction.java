package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Every libcuda function the library calls, each declared once: the constant's name is the exact export
 * {@value #HEADER} maps the API to ({@code cuMemAlloc} is {@code cuMemAlloc_v2}, {@code cuEventElapsedTime} is
 * {@code cuEventElapsedTime_v2}, ...), its descriptor the C signature for Linux LP64 (a test checks each name against
 * the header). The calls are static methods of one class per area, named in each section's comment
 * ({@link MemoryCalls#cuMemAlloc_v2} returns the {@code CUresult}, {@link MemoryCalls#memAlloc} throws unless it is
 * {@link #CUDA_SUCCESS}); each links its handle from its constant, and errors name a function by its constant, so
 * the export, its signature and the name in an error message cannot disagree.
 *
 * <p>C types map as: {@code CUresult}, {@code int}, {@code unsigned int}, {@code CUdevice} and enums to
 * {@code JAVA_INT}; {@code size_t}, {@code CUdeviceptr} and {@code unsigned long long} to {@code JAVA_LONG}; pointers
 * and handles ({@code CUcontext}, {@code CUstream}, ...) to {@code ADDRESS}; IPC handles, passed by value, to a
 * 64-byte struct, linked in the form {@link IpcHandleByValue} gives and passed as its {@code byte[]}.
 * {@code unsigned char} arguments are {@code int}s passed zero-extended: the ABI lets the callee read the low byte,
 * and zero-extension is what compilers that rely on extension expect. Out-parameters are segments the caller
 * allocates. The driver binds a context to the calling OS thread: call from platform threads, with the context
 * current.
 *
 * <p>A missing library or function is not an error of the declaration: its handle then throws the exception the
 * typed layer {@linkplain CudaLibrary#reportFailuresWith installed} for it, at each call.
 */
public enum CudaFunction {
    // Errors: DeviceCalls
    /** {@code CUresult cuGetErrorName(CUresult error, const char **pStr)} */
    cuGetErrorName(JAVA_INT, JAVA_INT, ADDRESS),
    /** {@code CUresult cuGetErrorString(CUresult error, const char **pStr)} */
    cuGetErrorString(JAVA_INT, JAVA_INT, ADDRESS),
    // Initialisation and devices: DeviceCalls
    /** {@code CUresult cuInit(unsigned int Flags)} */
    cuInit(JAVA_INT, JAVA_INT),
    /** {@code CUresult cuDriverGetVersion(int *driverVersion)} */
    cuDriverGetVersion(JAVA_INT, ADDRESS),
    /** {@code CUresult cuDeviceGetCount(int *count)} */
    cuDeviceGetCount(JAVA_INT, ADDRESS),
    /** {@code CUresult cuDeviceGet(CUdevice *device, int ordinal)} */
    cuDeviceGet(JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code CUresult cuDeviceGetName(char *name, int len, CUdevice dev)} */
    cuDeviceGetName(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)} */
    cuDeviceGetAttribute(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)} */
    cuDeviceTotalMem_v2(JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)} */
    cuDeviceGetPCIBusId(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)} */
    cuDeviceCanAccessPeer(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)} */
    cuDeviceGetUuid_v2(JAVA_INT, ADDRESS, JAVA_INT),
    // Contexts: DeviceCalls
    /** {@code CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)} */
    cuDevicePrimaryCtxRetain(JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code CUresult cuDevicePrimaryCtxRelease(CUdevice dev)} */
    cuDevicePrimaryCtxRelease_v2(JAVA_INT, JAVA_INT),
    /** {@code CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)} */
    cuDevicePrimaryCtxGetState(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code CUresult cuCtxSetCurrent(CUcontext ctx)} */
    cuCtxSetCurrent(JAVA_INT, ADDRESS),
    /** {@code CUresult cuCtxGetCurrent(CUcontext *pctx)} */
    cuCtxGetCurrent(JAVA_INT, ADDRESS),
    /** {@code CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)} */
    cuCtxEnablePeerAccess(JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code CUresult cuCtxSynchronize(void)} */
    cuCtxSynchronize(JAVA_INT),
    // Memory: MemoryCalls
    /** {@code CUresult cuMemGetInfo(size_t *free, size_t *total)} */
    cuMemGetInfo_v2(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)} */
    cuMemAlloc_v2(JAVA_INT, ADDRESS, JAVA_LONG),
    /** {@code CUresult cuMemFree(CUdeviceptr dptr)} */
    cuMemFree_v2(JAVA_INT, JAVA_LONG),
    /** {@code CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)} */
    cuMemGetAddressRange_v2(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG),
    /** {@code CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)} */
    cuMemHostAlloc(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
    /** {@code CUresult cuMemFreeHost(void *p)} */
    cuMemFreeHost(JAVA_INT, ADDRESS),
    /** {@code CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)} */
    cuMemcpyHtoD_v2(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG),
    /** {@code CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)} */
    cuMemcpyDtoH_v2(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG),
    /** {@code CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)} */
    cuMemcpyDtoD_v2(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /**
     * {@code CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream
     * hStream)}
     */
    cuMemcpyHtoDAsync_v2(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS),
    /** {@code CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)} */
    cuMemcpyDtoHAsync_v2(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS),
    /**
     * {@code CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream
     * hStream)}
     */
    cuMemcpyDtoDAsync_v2(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS),
    /**
     * {@code CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)}
     * ({@code uc}: the byte value, zero-extended: {@code value & 0xff})
     */
    cuMemsetD8_v2(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG),
    /**
     * {@code CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)}
     * ({@code uc}: the byte value, zero-extended: {@code value & 0xff})
     */
    cuMemsetD8Async(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS),
    /** {@code CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)} */
    cuMemHostRegister_v2(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
    /** {@code CUresult cuMemHostUnregister(void *p)} */
    cuMemHostUnregister(JAVA_INT, ADDRESS),
    /** {@code CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)} */
    cuMemHostGetDevicePointer_v2(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
    // Virtual memory management (CUmemGenericAllocationHandle is an unsigned long long): VmmCalls
    /**
     * {@code CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
     * CUmemAllocationGranularity_flags option)}
     */
    cuMemGetAllocationGranularity(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
    /**
     * {@code CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
     * unsigned long long flags)}
     */
    cuMemCreate(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG),
    /** {@code CUresult cuMemRelease(CUmemGenericAllocationHandle handle)} */
    cuMemRelease(JAVA_INT, JAVA_LONG),
    /**
     * {@code CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned
     * long long flags)}
     */
    cuMemAddressReserve(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /** {@code CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)} */
    cuMemAddressFree(JAVA_INT, JAVA_LONG, JAVA_LONG),
    /**
     * {@code CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
     * unsigned long long flags)}
     */
    cuMemMap(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /** {@code CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)} */
    cuMemUnmap(JAVA_INT, JAVA_LONG, JAVA_LONG),
    /** {@code CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)} */
    cuMemSetAccess(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
    /**
     * {@code CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
     * CUmemAllocationHandleType handleType, unsigned long long flags)}
     */
    cuMemExportToShareableHandle(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG),
    /**
     * {@code CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
     * CUmemAllocationHandleType shHandleType)}
     */
    cuMemImportFromShareableHandle(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
    // Stream-ordered memory pools: PoolCalls
    /** {@code CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)} */
    cuMemPoolCreate(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code CUresult cuMemPoolDestroy(CUmemoryPool pool)} */
    cuMemPoolDestroy(JAVA_INT, ADDRESS),
    /** {@code CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)} */
    cuMemPoolSetAttribute(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS),
    /** {@code CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)} */
    cuMemPoolSetAccess(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG),
    /**
     * {@code CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)}
     */
    cuMemAllocFromPoolAsync(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS),
    /** {@code CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)} */
    cuMemFreeAsync(JAVA_INT, JAVA_LONG, ADDRESS),
    /**
     * {@code CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType
     * handleType, unsigned long long flags)}
     */
    cuMemPoolExportToShareableHandle(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG),
    /**
     * {@code CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
     * CUmemAllocationHandleType handleType, unsigned long long flags)}
     */
    cuMemPoolImportFromShareableHandle(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG),
    /** {@code CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)} */
    cuMemPoolExportPointer(JAVA_INT, ADDRESS, JAVA_LONG),
    /**
     * {@code CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData
     * *shareData)}
     */
    cuMemPoolImportPointer(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
    // Streams: StreamCalls
    /** {@code CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)} */
    cuStreamCreate(JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)} */
    cuStreamWaitEvent(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
    /** {@code CUresult cuStreamSynchronize(CUstream hStream)} */
    cuStreamSynchronize(JAVA_INT, ADDRESS),
    /** {@code CUresult cuStreamDestroy(CUstream hStream)} */
    cuStreamDestroy_v2(JAVA_INT, ADDRESS),
    /** {@code CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)} */
    cuStreamWaitValue32_v2(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT),
    /**
     * {@code CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)}
     */
    cuStreamWriteValue32_v2(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT),
    // Events: StreamCalls
    /** {@code CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)} */
    cuEventCreate(JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code CUresult cuEventRecord(CUevent hEvent, CUstream hStream)} */
    cuEventRecord(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code CUresult cuEventSynchronize(CUevent hEvent)} */
    cuEventSynchronize(JAVA_INT, ADDRESS),
    /** {@code CUresult cuEventQuery(CUevent hEvent)} */
    cuEventQuery(JAVA_INT, ADDRESS),
    /** {@code CUresult cuStreamQuery(CUstream hStream)} */
    cuStreamQuery(JAVA_INT, ADDRESS),
    /**
     * {@code CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)}. The {@code _v2} export
     * came with CUDA 12.8; the drivers from CUDA 12.0 on that the project supports export only
     * {@code cuEventElapsedTime}, which differs in how it reports errors of earlier, unrelated work.
     */
    cuEventElapsedTime_v2("cuEventElapsedTime", JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
    /** {@code CUresult cuEventDestroy(CUevent hEvent)} */
    cuEventDestroy_v2(JAVA_INT, ADDRESS),
    // IPC: IpcCalls
    /** {@code CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)} */
    cuIpcGetMemHandle(JAVA_INT, ADDRESS, JAVA_LONG),
    /**
     * {@code CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)}
     * ({@code handle}: 64 bytes, passed by value, {@link CuSymbols#CU_IPC_MEM_HANDLE})
     */
    cuIpcOpenMemHandle_v2(JAVA_INT, ADDRESS, CuSymbols.CU_IPC_MEM_HANDLE, JAVA_INT),
    /** {@code CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)} */
    cuIpcCloseMemHandle(JAVA_INT, JAVA_LONG),
    /** {@code CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)} */
    cuIpcGetEventHandle(JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)}
     * ({@code handle}: 64 bytes, passed by value, {@link CuSymbols#CU_IPC_EVENT_HANDLE})
     */
    cuIpcOpenEventHandle(JAVA_INT, ADDRESS, CuSymbols.CU_IPC_EVENT_HANDLE),
    // Modules and launches: ModuleCalls
    /** {@code CUresult cuModuleLoadData(CUmodule *module, const void *image)} */
    cuModuleLoadData(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)} */
    cuModuleGetFunction(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
    /** {@code CUresult cuModuleUnload(CUmodule hmod)} */
    cuModuleUnload(JAVA_INT, ADDRESS),
    /**
     * {@code CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
     * unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream
     * hStream, void **kernelParams, void **extra)}
     */
    cuLaunchKernel(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS,
            ADDRESS, ADDRESS),
    /**
     * {@code CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
     * size_t dynamicSMemSize)}
     */
    cuOccupancyMaxActiveBlocksPerMultiprocessor(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG),
    /** {@code CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)} */
    cuFuncGetAttribute(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);

    /** The header that declares every function here. */
    public static final String HEADER = "cuda.h";

    /**
     * {@code CUDA_SUCCESS}: the {@code CUresult} of a call that succeeded, the one every check compares with; the
     * typed layer's table of codes ({@code CudaError}) takes its success from here.
     */
    public static final int CUDA_SUCCESS = 0;

    private final String fallback;
    private final FunctionDescriptor descriptor;
    /** Set once a handle was linked for the function: by its first call or by {@link Prelink}. */
    private volatile boolean linked;

    CudaFunction(MemoryLayout returns, MemoryLayout... parameters) {
        this(null, returns, parameters);
    }

    CudaFunction(String fallback, MemoryLayout returns, MemoryLayout... parameters) {
        this.fallback = fallback;
        this.descriptor = FunctionDescriptor.of(returns, parameters);
    }

    /** {@return the C signature as an FFM descriptor} */
    public FunctionDescriptor descriptor() {
        return descriptor;
    }

    /**
     * {@return the older export called where the driver lacks {@link #name()}, with the same C signature and meaning
     * for this binding's use; empty for almost every function (an unversioned name is usually another ABI)}
     */
    public Optional<String> fallback() {
        return Optional.ofNullable(fallback);
    }

    /**
     * {@return the function declared under {@code name} (its {@code cuda.h} name), if any}
     *
     * @param name a {@code cuda.h} function name
     */
    public static Optional<CudaFunction> named(String name) {
        for (CudaFunction f : values()) {
            if (f.name().equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /** {@return true once the function's handle is linked (by its first call or by {@link Prelink})} */
    public boolean isLinked() {
        return linked;
    }

    /**
     * {@return the exception for {@code code}, returned by this function: what its checked call throws}
     *
     * @param code the {@code CUresult} returned
     */
    public RuntimeException failure(int code) {
        return CudaLibrary.callFailed(name(), code);
    }

    /**
     * Throws this function's {@linkplain #failure failure} unless {@code result} is {@link #CUDA_SUCCESS}: for a
     * result read before it is checked (not ready, already enabled, ...).
     *
     * @param result the {@code CUresult} returned
     */
    public void check(int result) {
        if (result != CUDA_SUCCESS) {
            throw failure(result);
        }
    }

    /**
     * The handle of this function, for its holder class: what is linked is the C signature, or where it passes an
     * IPC handle by value, its platform's form. Without the library or the function, the handle throws the reported
     * exception when called.
     */
    MethodHandle link() {
        MethodHandle handle = CudaLibrary.downcall(name(), fallback, IpcHandleByValue.linked(descriptor));
        linked = true;
        return handle;
    }

    /**
     * {@return what a call of this function throws for {@code t}: a runtime exception as it is, a checked one (no
     * downcall declares any) wrapped with the function's name} An error is rethrown at once.
     */
    RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(name() + ": unexpected checked exception from a CUDA downcall", t);
    }
}
