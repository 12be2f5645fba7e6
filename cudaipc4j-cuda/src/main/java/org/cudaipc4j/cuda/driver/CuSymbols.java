package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * The structs of {@code cuda.h} that driver calls ({@link CudaFunction}) take or fill, as FFM layouts for Linux x86-64
 * and aarch64 (LP64): IPC handles, passed by value, are 64-byte {@link StructLayout}s.
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

    private CuSymbols() {}
}
