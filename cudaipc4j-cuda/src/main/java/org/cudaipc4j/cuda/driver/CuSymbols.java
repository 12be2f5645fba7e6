package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every libcuda function this binding calls, under the exact name {@code cuda.h} maps its API to
 * ({@code cuMemAlloc} is {@code cuMemAlloc_v2}, {@code cuEventElapsedTime} is {@code cuEventElapsedTime_v2}, ...),
 * with its C signature as an FFM descriptor for Linux x86-64 and aarch64 (LP64).
 *
 * <p>C types map as: {@code CUresult}, {@code int}, {@code unsigned int}, {@code CUdevice} and enums to
 * {@code JAVA_INT}; {@code size_t} and {@code CUdeviceptr} to {@code JAVA_LONG}; pointers and handles
 * ({@code CUcontext}, {@code CUstream}, ...) to {@code ADDRESS}; IPC handles, passed by value, to a 64-byte
 * {@link StructLayout}. {@code unsigned char} arguments are declared {@code JAVA_INT} and passed zero-extended:
 * the ABI lets the callee read the low byte, and zero-extension is what compilers that rely on extension expect.
 */
public final class CuSymbols {
    /** {@code CU_IPC_HANDLE_SIZE}. */
    public static final int IPC_HANDLE_SIZE = 64;

    /** {@code CUipcMemHandle}: {@code struct { char reserved[64]; }}, passed by value. */
    public static final StructLayout CU_IPC_MEM_HANDLE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(IPC_HANDLE_SIZE, JAVA_BYTE).withName("reserved")).withName("CUipcMemHandle");

    /** {@code CUipcEventHandle}: {@code struct { char reserved[64]; }}, passed by value. */
    public static final StructLayout CU_IPC_EVENT_HANDLE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(IPC_HANDLE_SIZE, JAVA_BYTE).withName("reserved")).withName("CUipcEventHandle");

    /** {@code CUuuid}: {@code struct { char bytes[16]; }}. */
    public static final StructLayout CU_UUID = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("bytes")).withName("CUuuid");

    /** {@code CUmemLocation}: {@code { CUmemLocationType type; int id; }}. */
    public static final StructLayout CU_MEM_LOCATION = MemoryLayout.structLayout(
            JAVA_INT.withName("type"), JAVA_INT.withName("id")).withName("CUmemLocation");

    /**
     * {@code CUmemAllocationProp} (32 bytes): type, requested handle types, location, the Windows-only metadata
     * pointer, and {@code allocFlags} (compression type, GPUDirect RDMA capable, usage, 4 reserved bytes).
     */
    public static final StructLayout CU_MEM_ALLOCATION_PROP = MemoryLayout.structLayout(
            JAVA_INT.withName("type"),
            JAVA_INT.withName("requestedHandleTypes"),
            CU_MEM_LOCATION.withName("location"),
            ADDRESS.withName("win32HandleMetaData"),
            JAVA_BYTE.withName("compressionType"),
            JAVA_BYTE.withName("gpuDirectRDMACapable"),
            ValueLayout.JAVA_SHORT.withName("usage"),
            MemoryLayout.sequenceLayout(4, JAVA_BYTE).withName("reserved")).withName("CUmemAllocationProp");

    /** {@code CUmemAccessDesc}: {@code { CUmemLocation location; CUmemAccess_flags flags; }}. */
    public static final StructLayout CU_MEM_ACCESS_DESC = MemoryLayout.structLayout(
            CU_MEM_LOCATION.withName("location"), JAVA_INT.withName("flags")).withName("CUmemAccessDesc");

    /**
     * {@code CUmemPoolProps} (88 bytes): allocation type, handle types, location, the Windows-only security
     * attributes, {@code maxSize}, {@code usage} and reserved bytes (a CUDA 12.0 driver reads the last 64 bytes as
     * reserved: zero there means its defaults).
     */
    public static final StructLayout CU_MEM_POOL_PROPS = MemoryLayout.structLayout(
            JAVA_INT.withName("allocType"),
            JAVA_INT.withName("handleTypes"),
            CU_MEM_LOCATION.withName("location"),
            ADDRESS.withName("win32SecurityAttributes"),
            JAVA_LONG.withName("maxSize"),
            ValueLayout.JAVA_SHORT.withName("usage"),
            MemoryLayout.sequenceLayout(54, JAVA_BYTE).withName("reserved")).withName("CUmemPoolProps");

    /** {@code CUmemPoolPtrExportData}: 64 opaque bytes naming one allocation of an exported pool. */
    public static final StructLayout CU_MEM_POOL_PTR_EXPORT_DATA = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("reserved")).withName("CUmemPoolPtrExportData");

    /** {@code CUmemFabricHandle}: 64 opaque bytes naming an allocation or pool across an NVLink fabric. */
    public static final StructLayout CU_MEM_FABRIC_HANDLE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("data")).withName("CUmemFabricHandle");

    private static final ValueLayout.OfInt RESULT = JAVA_INT;
    private static final ValueLayout.OfInt INT = JAVA_INT;
    private static final ValueLayout.OfInt UCHAR = JAVA_INT;
    private static final ValueLayout.OfLong SIZE = JAVA_LONG;
    private static final ValueLayout.OfLong DPTR = JAVA_LONG;
    private static final ValueLayout.OfLong ULL = JAVA_LONG;
    private static final ValueLayout.OfLong HANDLE = JAVA_LONG;
    private static final ValueLayout PTR = ADDRESS;

    /** Symbol name to descriptor, in a stable order. */
    public static final Map<String, FunctionDescriptor> TABLE;

    static {
        Map<String, FunctionDescriptor> t = new LinkedHashMap<>();
        // Errors
        t.put("cuGetErrorName", FunctionDescriptor.of(RESULT, INT, PTR));
        t.put("cuGetErrorString", FunctionDescriptor.of(RESULT, INT, PTR));
        // Initialisation and devices
        t.put("cuInit", FunctionDescriptor.of(RESULT, INT));
        t.put("cuDriverGetVersion", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuDeviceGetCount", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuDeviceGet", FunctionDescriptor.of(RESULT, PTR, INT));
        t.put("cuDeviceGetName", FunctionDescriptor.of(RESULT, PTR, INT, INT));
        t.put("cuDeviceGetAttribute", FunctionDescriptor.of(RESULT, PTR, INT, INT));
        t.put("cuDeviceTotalMem_v2", FunctionDescriptor.of(RESULT, PTR, INT));
        t.put("cuDeviceGetPCIBusId", FunctionDescriptor.of(RESULT, PTR, INT, INT));
        t.put("cuDeviceCanAccessPeer", FunctionDescriptor.of(RESULT, PTR, INT, INT));
        t.put("cuDeviceGetUuid_v2", FunctionDescriptor.of(RESULT, PTR, INT));
        // Contexts
        t.put("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(RESULT, PTR, INT));
        t.put("cuDevicePrimaryCtxRelease_v2", FunctionDescriptor.of(RESULT, INT));
        t.put("cuDevicePrimaryCtxGetState", FunctionDescriptor.of(RESULT, INT, PTR, PTR));
        t.put("cuCtxSetCurrent", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuCtxGetCurrent", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuCtxEnablePeerAccess", FunctionDescriptor.of(RESULT, PTR, INT));
        t.put("cuCtxSynchronize", FunctionDescriptor.of(RESULT));
        // Memory
        t.put("cuMemGetInfo_v2", FunctionDescriptor.of(RESULT, PTR, PTR));
        t.put("cuMemAlloc_v2", FunctionDescriptor.of(RESULT, PTR, SIZE));
        t.put("cuMemFree_v2", FunctionDescriptor.of(RESULT, DPTR));
        t.put("cuMemGetAddressRange_v2", FunctionDescriptor.of(RESULT, PTR, PTR, DPTR));
        t.put("cuMemHostAlloc", FunctionDescriptor.of(RESULT, PTR, SIZE, INT));
        t.put("cuMemFreeHost", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuMemcpyHtoD_v2", FunctionDescriptor.of(RESULT, DPTR, PTR, SIZE));
        t.put("cuMemcpyDtoH_v2", FunctionDescriptor.of(RESULT, PTR, DPTR, SIZE));
        t.put("cuMemcpyDtoD_v2", FunctionDescriptor.of(RESULT, DPTR, DPTR, SIZE));
        t.put("cuMemcpyHtoDAsync_v2", FunctionDescriptor.of(RESULT, DPTR, PTR, SIZE, PTR));
        t.put("cuMemcpyDtoHAsync_v2", FunctionDescriptor.of(RESULT, PTR, DPTR, SIZE, PTR));
        t.put("cuMemcpyDtoDAsync_v2", FunctionDescriptor.of(RESULT, DPTR, DPTR, SIZE, PTR));
        t.put("cuMemsetD8_v2", FunctionDescriptor.of(RESULT, DPTR, UCHAR, SIZE));
        t.put("cuMemsetD8Async", FunctionDescriptor.of(RESULT, DPTR, UCHAR, SIZE, PTR));
        t.put("cuMemHostRegister_v2", FunctionDescriptor.of(RESULT, PTR, SIZE, INT));
        t.put("cuMemHostUnregister", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuMemHostGetDevicePointer_v2", FunctionDescriptor.of(RESULT, PTR, PTR, INT));
        // Virtual memory management (CUmemGenericAllocationHandle is an unsigned long long)
        t.put("cuMemGetAllocationGranularity", FunctionDescriptor.of(RESULT, PTR, PTR, INT));
        t.put("cuMemCreate", FunctionDescriptor.of(RESULT, PTR, SIZE, PTR, ULL));
        t.put("cuMemRelease", FunctionDescriptor.of(RESULT, HANDLE));
        t.put("cuMemAddressReserve", FunctionDescriptor.of(RESULT, PTR, SIZE, SIZE, DPTR, ULL));
        t.put("cuMemAddressFree", FunctionDescriptor.of(RESULT, DPTR, SIZE));
        t.put("cuMemMap", FunctionDescriptor.of(RESULT, DPTR, SIZE, SIZE, HANDLE, ULL));
        t.put("cuMemUnmap", FunctionDescriptor.of(RESULT, DPTR, SIZE));
        t.put("cuMemSetAccess", FunctionDescriptor.of(RESULT, DPTR, SIZE, PTR, SIZE));
        t.put("cuMemExportToShareableHandle", FunctionDescriptor.of(RESULT, PTR, HANDLE, INT, ULL));
        t.put("cuMemImportFromShareableHandle", FunctionDescriptor.of(RESULT, PTR, PTR, INT));
        // Stream-ordered memory pools
        t.put("cuMemPoolCreate", FunctionDescriptor.of(RESULT, PTR, PTR));
        t.put("cuMemPoolDestroy", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuMemPoolSetAttribute", FunctionDescriptor.of(RESULT, PTR, INT, PTR));
        t.put("cuMemPoolSetAccess", FunctionDescriptor.of(RESULT, PTR, PTR, SIZE));
        t.put("cuMemAllocFromPoolAsync", FunctionDescriptor.of(RESULT, PTR, SIZE, PTR, PTR));
        t.put("cuMemFreeAsync", FunctionDescriptor.of(RESULT, DPTR, PTR));
        t.put("cuMemPoolExportToShareableHandle", FunctionDescriptor.of(RESULT, PTR, PTR, INT, ULL));
        t.put("cuMemPoolImportFromShareableHandle", FunctionDescriptor.of(RESULT, PTR, PTR, INT, ULL));
        t.put("cuMemPoolExportPointer", FunctionDescriptor.of(RESULT, PTR, DPTR));
        t.put("cuMemPoolImportPointer", FunctionDescriptor.of(RESULT, PTR, PTR, PTR));
        // Streams
        t.put("cuStreamCreate", FunctionDescriptor.of(RESULT, PTR, INT));
        t.put("cuStreamWaitEvent", FunctionDescriptor.of(RESULT, PTR, PTR, INT));
        t.put("cuStreamSynchronize", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuStreamDestroy_v2", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuStreamWaitValue32_v2", FunctionDescriptor.of(RESULT, PTR, DPTR, INT, INT));
        t.put("cuStreamWriteValue32_v2", FunctionDescriptor.of(RESULT, PTR, DPTR, INT, INT));
        // Events
        t.put("cuEventCreate", FunctionDescriptor.of(RESULT, PTR, INT));
        t.put("cuEventRecord", FunctionDescriptor.of(RESULT, PTR, PTR));
        t.put("cuEventSynchronize", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuEventQuery", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuStreamQuery", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuEventElapsedTime_v2", FunctionDescriptor.of(RESULT, PTR, PTR, PTR));
        t.put("cuEventDestroy_v2", FunctionDescriptor.of(RESULT, PTR));
        // IPC
        t.put("cuIpcGetMemHandle", FunctionDescriptor.of(RESULT, PTR, DPTR));
        t.put("cuIpcOpenMemHandle_v2", FunctionDescriptor.of(RESULT, PTR, CU_IPC_MEM_HANDLE, INT));
        t.put("cuIpcCloseMemHandle", FunctionDescriptor.of(RESULT, DPTR));
        t.put("cuIpcGetEventHandle", FunctionDescriptor.of(RESULT, PTR, PTR));
        t.put("cuIpcOpenEventHandle", FunctionDescriptor.of(RESULT, PTR, CU_IPC_EVENT_HANDLE));
        // Modules and launches
        t.put("cuModuleLoadData", FunctionDescriptor.of(RESULT, PTR, PTR));
        t.put("cuModuleGetFunction", FunctionDescriptor.of(RESULT, PTR, PTR, PTR));
        t.put("cuModuleUnload", FunctionDescriptor.of(RESULT, PTR));
        t.put("cuLaunchKernel", FunctionDescriptor.of(RESULT,
                PTR, INT, INT, INT, INT, INT, INT, INT, PTR, PTR, PTR));
        t.put("cuOccupancyMaxActiveBlocksPerMultiprocessor", FunctionDescriptor.of(RESULT, PTR, PTR, INT, SIZE));
        t.put("cuFuncGetAttribute", FunctionDescriptor.of(RESULT, PTR, INT, PTR));
        TABLE = Collections.unmodifiableMap(t);
    }

    private CuSymbols() {}
}
