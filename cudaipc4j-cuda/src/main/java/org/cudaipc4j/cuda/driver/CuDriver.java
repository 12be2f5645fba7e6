package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every libcuda function this binding calls, declared once: a constant named after the function (without the
 * {@code cu} prefix and the ABI version suffix), made from the exact name {@code cuda.h} maps its API to
 * ({@code cuMemAlloc} is {@code cuMemAlloc_v2}, {@code cuEventElapsedTime} is {@code cuEventElapsedTime_v2}, ...)
 * and a {@link CuFunction} type that is its signature. Code calls the driver through these constants only:
 * {@code CuDriver.MEM_ALLOC.check(out, bytes)} throws, naming {@code cuMemAlloc_v2}, when the driver refuses, and
 * {@code call} returns the {@code CUresult} where the caller reads it (not ready, already enabled, ...).
 *
 * <p>Out-parameters are {@link java.lang.foreign.MemorySegment}s the caller allocates; handles ({@code CUcontext},
 * {@code CUstream}, ...) are segment addresses; device pointers are {@code long}. Each function's handle is linked
 * on its first call (or by {@link Prelink}). The driver binds a context to the calling OS thread: call from platform
 * threads, with the context current.
 */
public final class CuDriver {
    /**
     * {@code CUDA_SUCCESS}: the {@code CUresult} of a call that succeeded, the one every check compares with; the
     * typed layer's table of codes ({@code CudaError}) takes its success from here.
     */
    public static final int CUDA_SUCCESS = 0;

    /** Filled by each declaration's constructor, in declaration order (it must come before them). */
    private static final List<CuFunction> DECLARED = new ArrayList<>();

    // Errors
    /** {@code CUresult cuGetErrorName(CUresult error, const char **pStr)} */
    public static final CuFunction.IP GET_ERROR_NAME = new CuFunction.IP("cuGetErrorName");
    /** {@code CUresult cuGetErrorString(CUresult error, const char **pStr)} */
    public static final CuFunction.IP GET_ERROR_STRING = new CuFunction.IP("cuGetErrorString");
    // Initialisation and devices
    /** {@code CUresult cuInit(unsigned int Flags)} */
    public static final CuFunction.I INIT = new CuFunction.I("cuInit");
    /** {@code CUresult cuDriverGetVersion(int *driverVersion)} */
    public static final CuFunction.P DRIVER_GET_VERSION = new CuFunction.P("cuDriverGetVersion");
    /** {@code CUresult cuDeviceGetCount(int *count)} */
    public static final CuFunction.P DEVICE_GET_COUNT = new CuFunction.P("cuDeviceGetCount");
    /** {@code CUresult cuDeviceGet(CUdevice *device, int ordinal)} */
    public static final CuFunction.PI DEVICE_GET = new CuFunction.PI("cuDeviceGet");
    /** {@code CUresult cuDeviceGetName(char *name, int len, CUdevice dev)} */
    public static final CuFunction.PII DEVICE_GET_NAME = new CuFunction.PII("cuDeviceGetName");
    /** {@code CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)} */
    public static final CuFunction.PII DEVICE_GET_ATTRIBUTE = new CuFunction.PII("cuDeviceGetAttribute");
    /** {@code CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)} */
    public static final CuFunction.PI DEVICE_TOTAL_MEM = new CuFunction.PI("cuDeviceTotalMem_v2");
    /** {@code CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)} */
    public static final CuFunction.PII DEVICE_GET_PCI_BUS_ID = new CuFunction.PII("cuDeviceGetPCIBusId");
    /** {@code CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)} */
    public static final CuFunction.PII DEVICE_CAN_ACCESS_PEER = new CuFunction.PII("cuDeviceCanAccessPeer");
    /** {@code CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)} */
    public static final CuFunction.PI DEVICE_GET_UUID = new CuFunction.PI("cuDeviceGetUuid_v2");
    // Contexts
    /** {@code CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)} */
    public static final CuFunction.PI DEVICE_PRIMARY_CTX_RETAIN = new CuFunction.PI("cuDevicePrimaryCtxRetain");
    /** {@code CUresult cuDevicePrimaryCtxRelease(CUdevice dev)} */
    public static final CuFunction.I DEVICE_PRIMARY_CTX_RELEASE = new CuFunction.I("cuDevicePrimaryCtxRelease_v2");
    /** {@code CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)} */
    public static final CuFunction.IPP DEVICE_PRIMARY_CTX_GET_STATE = new CuFunction.IPP("cuDevicePrimaryCtxGetState");
    /** {@code CUresult cuCtxSetCurrent(CUcontext ctx)} */
    public static final CuFunction.P CTX_SET_CURRENT = new CuFunction.P("cuCtxSetCurrent");
    /** {@code CUresult cuCtxGetCurrent(CUcontext *pctx)} */
    public static final CuFunction.P CTX_GET_CURRENT = new CuFunction.P("cuCtxGetCurrent");
    /** {@code CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)} */
    public static final CuFunction.PI CTX_ENABLE_PEER_ACCESS = new CuFunction.PI("cuCtxEnablePeerAccess");
    /** {@code CUresult cuCtxSynchronize(void)} */
    public static final CuFunction.V CTX_SYNCHRONIZE = new CuFunction.V("cuCtxSynchronize");
    // Memory
    /** {@code CUresult cuMemGetInfo(size_t *free, size_t *total)} */
    public static final CuFunction.PP MEM_GET_INFO = new CuFunction.PP("cuMemGetInfo_v2");
    /** {@code CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)} */
    public static final CuFunction.PJ MEM_ALLOC = new CuFunction.PJ("cuMemAlloc_v2");
    /** {@code CUresult cuMemFree(CUdeviceptr dptr)} */
    public static final CuFunction.J MEM_FREE = new CuFunction.J("cuMemFree_v2");
    /** {@code CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)} */
    public static final CuFunction.PPJ MEM_GET_ADDRESS_RANGE = new CuFunction.PPJ("cuMemGetAddressRange_v2");
    /** {@code CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)} */
    public static final CuFunction.PJI MEM_HOST_ALLOC = new CuFunction.PJI("cuMemHostAlloc");
    /** {@code CUresult cuMemFreeHost(void *p)} */
    public static final CuFunction.P MEM_FREE_HOST = new CuFunction.P("cuMemFreeHost");
    /** {@code CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)} */
    public static final CuFunction.JPJ MEMCPY_HTOD = new CuFunction.JPJ("cuMemcpyHtoD_v2");
    /** {@code CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)} */
    public static final CuFunction.PJJ MEMCPY_DTOH = new CuFunction.PJJ("cuMemcpyDtoH_v2");
    /** {@code CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)} */
    public static final CuFunction.JJJ MEMCPY_DTOD = new CuFunction.JJJ("cuMemcpyDtoD_v2");
    /** {@code CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)} */
    public static final CuFunction.JPJP MEMCPY_HTOD_ASYNC = new CuFunction.JPJP("cuMemcpyHtoDAsync_v2");
    /** {@code CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)} */
    public static final CuFunction.PJJP MEMCPY_DTOH_ASYNC = new CuFunction.PJJP("cuMemcpyDtoHAsync_v2");
    /** {@code CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)} */
    public static final CuFunction.JJJP MEMCPY_DTOD_ASYNC = new CuFunction.JJJP("cuMemcpyDtoDAsync_v2");
    /**
     * {@code CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)}
     * ({@code uc}: the byte value, zero-extended: {@code value & 0xff})
     */
    public static final CuFunction.JIJ MEMSET_D8 = new CuFunction.JIJ("cuMemsetD8_v2");
    /**
     * {@code CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)}
     * ({@code uc}: the byte value, zero-extended: {@code value & 0xff})
     */
    public static final CuFunction.JIJP MEMSET_D8_ASYNC = new CuFunction.JIJP("cuMemsetD8Async");
    /** {@code CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)} */
    public static final CuFunction.PJI MEM_HOST_REGISTER = new CuFunction.PJI("cuMemHostRegister_v2");
    /** {@code CUresult cuMemHostUnregister(void *p)} */
    public static final CuFunction.P MEM_HOST_UNREGISTER = new CuFunction.P("cuMemHostUnregister");
    /** {@code CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)} */
    public static final CuFunction.PPI MEM_HOST_GET_DEVICE_POINTER = new CuFunction.PPI("cuMemHostGetDevicePointer_v2");
    // Virtual memory management (CUmemGenericAllocationHandle is an unsigned long long)
    /** {@code CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option)} */
    public static final CuFunction.PPI MEM_GET_ALLOCATION_GRANULARITY =
            new CuFunction.PPI("cuMemGetAllocationGranularity");
    /** {@code CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)} */
    public static final CuFunction.PJPJ MEM_CREATE = new CuFunction.PJPJ("cuMemCreate");
    /** {@code CUresult cuMemRelease(CUmemGenericAllocationHandle handle)} */
    public static final CuFunction.J MEM_RELEASE = new CuFunction.J("cuMemRelease");
    /** {@code CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)} */
    public static final CuFunction.PJJJJ MEM_ADDRESS_RESERVE = new CuFunction.PJJJJ("cuMemAddressReserve");
    /** {@code CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)} */
    public static final CuFunction.JJ MEM_ADDRESS_FREE = new CuFunction.JJ("cuMemAddressFree");
    /** {@code CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)} */
    public static final CuFunction.JJJJJ MEM_MAP = new CuFunction.JJJJJ("cuMemMap");
    /** {@code CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)} */
    public static final CuFunction.JJ MEM_UNMAP = new CuFunction.JJ("cuMemUnmap");
    /** {@code CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)} */
    public static final CuFunction.JJPJ MEM_SET_ACCESS = new CuFunction.JJPJ("cuMemSetAccess");
    /** {@code CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags)} */
    public static final CuFunction.PJIJ MEM_EXPORT_TO_SHAREABLE_HANDLE =
            new CuFunction.PJIJ("cuMemExportToShareableHandle");
    /** {@code CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType)} */
    public static final CuFunction.PPI MEM_IMPORT_FROM_SHAREABLE_HANDLE =
            new CuFunction.PPI("cuMemImportFromShareableHandle");
    // Stream-ordered memory pools
    /** {@code CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)} */
    public static final CuFunction.PP MEM_POOL_CREATE = new CuFunction.PP("cuMemPoolCreate");
    /** {@code CUresult cuMemPoolDestroy(CUmemoryPool pool)} */
    public static final CuFunction.P MEM_POOL_DESTROY = new CuFunction.P("cuMemPoolDestroy");
    /** {@code CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)} */
    public static final CuFunction.PIP MEM_POOL_SET_ATTRIBUTE = new CuFunction.PIP("cuMemPoolSetAttribute");
    /** {@code CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)} */
    public static final CuFunction.PPJ MEM_POOL_SET_ACCESS = new CuFunction.PPJ("cuMemPoolSetAccess");
    /** {@code CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)} */
    public static final CuFunction.PJPP MEM_ALLOC_FROM_POOL_ASYNC = new CuFunction.PJPP("cuMemAllocFromPoolAsync");
    /** {@code CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)} */
    public static final CuFunction.JP MEM_FREE_ASYNC = new CuFunction.JP("cuMemFreeAsync");
    /** {@code CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags)} */
    public static final CuFunction.PPIJ MEM_POOL_EXPORT_TO_SHAREABLE_HANDLE =
            new CuFunction.PPIJ("cuMemPoolExportToShareableHandle");
    /** {@code CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags)} */
    public static final CuFunction.PPIJ MEM_POOL_IMPORT_FROM_SHAREABLE_HANDLE =
            new CuFunction.PPIJ("cuMemPoolImportFromShareableHandle");
    /** {@code CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)} */
    public static final CuFunction.PJ MEM_POOL_EXPORT_POINTER = new CuFunction.PJ("cuMemPoolExportPointer");
    /** {@code CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)} */
    public static final CuFunction.PPP MEM_POOL_IMPORT_POINTER = new CuFunction.PPP("cuMemPoolImportPointer");
    // Streams
    /** {@code CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)} */
    public static final CuFunction.PI STREAM_CREATE = new CuFunction.PI("cuStreamCreate");
    /** {@code CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)} */
    public static final CuFunction.PPI STREAM_WAIT_EVENT = new CuFunction.PPI("cuStreamWaitEvent");
    /** {@code CUresult cuStreamSynchronize(CUstream hStream)} */
    public static final CuFunction.P STREAM_SYNCHRONIZE = new CuFunction.P("cuStreamSynchronize");
    /** {@code CUresult cuStreamDestroy(CUstream hStream)} */
    public static final CuFunction.P STREAM_DESTROY = new CuFunction.P("cuStreamDestroy_v2");
    /** {@code CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)} */
    public static final CuFunction.PJII STREAM_WAIT_VALUE32 = new CuFunction.PJII("cuStreamWaitValue32_v2");
    /** {@code CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)} */
    public static final CuFunction.PJII STREAM_WRITE_VALUE32 = new CuFunction.PJII("cuStreamWriteValue32_v2");
    // Events
    /** {@code CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)} */
    public static final CuFunction.PI EVENT_CREATE = new CuFunction.PI("cuEventCreate");
    /** {@code CUresult cuEventRecord(CUevent hEvent, CUstream hStream)} */
    public static final CuFunction.PP EVENT_RECORD = new CuFunction.PP("cuEventRecord");
    /** {@code CUresult cuEventSynchronize(CUevent hEvent)} */
    public static final CuFunction.P EVENT_SYNCHRONIZE = new CuFunction.P("cuEventSynchronize");
    /** {@code CUresult cuEventQuery(CUevent hEvent)} */
    public static final CuFunction.P EVENT_QUERY = new CuFunction.P("cuEventQuery");
    /** {@code CUresult cuStreamQuery(CUstream hStream)} */
    public static final CuFunction.P STREAM_QUERY = new CuFunction.P("cuStreamQuery");
    /**
     * {@code CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)}. The {@code _v2} export
     * came with CUDA 12.8; the drivers from CUDA 12.0 on that the project supports export only
     * {@code cuEventElapsedTime}, which differs in how it reports errors of earlier, unrelated work.
     */
    public static final CuFunction.PPP EVENT_ELAPSED_TIME =
            new CuFunction.PPP("cuEventElapsedTime_v2", "cuEventElapsedTime");
    /** {@code CUresult cuEventDestroy(CUevent hEvent)} */
    public static final CuFunction.P EVENT_DESTROY = new CuFunction.P("cuEventDestroy_v2");
    // IPC
    /** {@code CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)} */
    public static final CuFunction.PJ IPC_GET_MEM_HANDLE = new CuFunction.PJ("cuIpcGetMemHandle");
    /**
     * {@code CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)}
     * ({@code handle}: 64 bytes, passed by value, {@link CuSymbols#CU_IPC_MEM_HANDLE})
     */
    public static final CuFunction.PHI IPC_OPEN_MEM_HANDLE =
            new CuFunction.PHI("cuIpcOpenMemHandle_v2",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, CuSymbols.CU_IPC_MEM_HANDLE, JAVA_INT));
    /** {@code CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)} */
    public static final CuFunction.J IPC_CLOSE_MEM_HANDLE = new CuFunction.J("cuIpcCloseMemHandle");
    /** {@code CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)} */
    public static final CuFunction.PP IPC_GET_EVENT_HANDLE = new CuFunction.PP("cuIpcGetEventHandle");
    /**
     * {@code CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)}
     * ({@code handle}: 64 bytes, passed by value, {@link CuSymbols#CU_IPC_EVENT_HANDLE})
     */
    public static final CuFunction.PH IPC_OPEN_EVENT_HANDLE =
            new CuFunction.PH("cuIpcOpenEventHandle",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, CuSymbols.CU_IPC_EVENT_HANDLE));
    // Modules and launches
    /** {@code CUresult cuModuleLoadData(CUmodule *module, const void *image)} */
    public static final CuFunction.PP MODULE_LOAD_DATA = new CuFunction.PP("cuModuleLoadData");
    /** {@code CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)} */
    public static final CuFunction.PPP MODULE_GET_FUNCTION = new CuFunction.PPP("cuModuleGetFunction");
    /** {@code CUresult cuModuleUnload(CUmodule hmod)} */
    public static final CuFunction.P MODULE_UNLOAD = new CuFunction.P("cuModuleUnload");
    /** {@code CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)} */
    public static final CuFunction.PIIIIIIIPPP LAUNCH_KERNEL = new CuFunction.PIIIIIIIPPP("cuLaunchKernel");
    /** {@code CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)} */
    public static final CuFunction.PPIJ OCCUPANCY_MAX_ACTIVE_BLOCKS_PER_MULTIPROCESSOR =
            new CuFunction.PPIJ("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    /** {@code CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)} */
    public static final CuFunction.PIP FUNC_GET_ATTRIBUTE = new CuFunction.PIP("cuFuncGetAttribute");

    private static final List<CuFunction> FUNCTIONS = List.copyOf(DECLARED);
    private static final Map<String, CuFunction> BY_NAME = byName();

    private CuDriver() {}

    /** Records a declaration; only the constants above are made. */
    static void declare(CuFunction function) {
        DECLARED.add(function);
    }

    private static Map<String, CuFunction> byName() {
        Map<String, CuFunction> m = new LinkedHashMap<>();
        for (CuFunction f : FUNCTIONS) {
            if (m.put(f.name(), f) != null) {
                throw new ExceptionInInitializerError(f.name() + " is declared twice");
            }
        }
        return Map.copyOf(m);
    }

    /** {@return every declared function, in declaration order} */
    public static List<CuFunction> functions() {
        return FUNCTIONS;
    }

    /**
     * {@return the function declared under {@code name} (its {@code cuda.h} name), if any}
     *
     * @param name a {@code cuda.h} function name
     */
    public static Optional<CuFunction> named(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }
}
