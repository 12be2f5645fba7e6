package org.cudaipc4j.cuda;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code CUresult} codes of {@code cuda.h} (CUDA 13.0). Codes this enum does not know map to
 * {@link #UNRECOGNIZED}; {@link CudaException#code()} keeps the raw value.
 */
public enum CudaError {
    SUCCESS(0),
    INVALID_VALUE(1),
    OUT_OF_MEMORY(2),
    NOT_INITIALIZED(3),
    DEINITIALIZED(4),
    PROFILER_DISABLED(5),
    PROFILER_NOT_INITIALIZED(6),
    PROFILER_ALREADY_STARTED(7),
    PROFILER_ALREADY_STOPPED(8),
    STUB_LIBRARY(34),
    CALL_REQUIRES_NEWER_DRIVER(36),
    DEVICE_UNAVAILABLE(46),
    NO_DEVICE(100),
    INVALID_DEVICE(101),
    DEVICE_NOT_LICENSED(102),
    INVALID_IMAGE(200),
    INVALID_CONTEXT(201),
    CONTEXT_ALREADY_CURRENT(202),
    MAP_FAILED(205),
    UNMAP_FAILED(206),
    ARRAY_IS_MAPPED(207),
    ALREADY_MAPPED(208),
    NO_BINARY_FOR_GPU(209),
    ALREADY_ACQUIRED(210),
    NOT_MAPPED(211),
    NOT_MAPPED_AS_ARRAY(212),
    NOT_MAPPED_AS_POINTER(213),
    ECC_UNCORRECTABLE(214),
    UNSUPPORTED_LIMIT(215),
    CONTEXT_ALREADY_IN_USE(216),
    PEER_ACCESS_UNSUPPORTED(217),
    INVALID_PTX(218),
    INVALID_GRAPHICS_CONTEXT(219),
    NVLINK_UNCORRECTABLE(220),
    JIT_COMPILER_NOT_FOUND(221),
    UNSUPPORTED_PTX_VERSION(222),
    JIT_COMPILATION_DISABLED(223),
    UNSUPPORTED_EXEC_AFFINITY(224),
    UNSUPPORTED_DEVSIDE_SYNC(225),
    CONTAINED(226),
    INVALID_SOURCE(300),
    FILE_NOT_FOUND(301),
    SHARED_OBJECT_SYMBOL_NOT_FOUND(302),
    SHARED_OBJECT_INIT_FAILED(303),
    OPERATING_SYSTEM(304),
    INVALID_HANDLE(400),
    ILLEGAL_STATE(401),
    LOSSY_QUERY(402),
    NOT_FOUND(500),
    NOT_READY(600),
    ILLEGAL_ADDRESS(700),
    LAUNCH_OUT_OF_RESOURCES(701),
    LAUNCH_TIMEOUT(702),
    LAUNCH_INCOMPATIBLE_TEXTURING(703),
    PEER_ACCESS_ALREADY_ENABLED(704),
    PEER_ACCESS_NOT_ENABLED(705),
    PRIMARY_CONTEXT_ACTIVE(708),
    CONTEXT_IS_DESTROYED(709),
    ASSERT(710),
    TOO_MANY_PEERS(711),
    HOST_MEMORY_ALREADY_REGISTERED(712),
    HOST_MEMORY_NOT_REGISTERED(713),
    HARDWARE_STACK_ERROR(714),
    ILLEGAL_INSTRUCTION(715),
    MISALIGNED_ADDRESS(716),
    INVALID_ADDRESS_SPACE(717),
    INVALID_PC(718),
    LAUNCH_FAILED(719),
    COOPERATIVE_LAUNCH_TOO_LARGE(720),
    TENSOR_MEMORY_LEAK(721),
    NOT_PERMITTED(800),
    NOT_SUPPORTED(801),
    SYSTEM_NOT_READY(802),
    SYSTEM_DRIVER_MISMATCH(803),
    COMPAT_NOT_SUPPORTED_ON_DEVICE(804),
    MPS_CONNECTION_FAILED(805),
    MPS_RPC_FAILURE(806),
    MPS_SERVER_NOT_READY(807),
    MPS_MAX_CLIENTS_REACHED(808),
    MPS_MAX_CONNECTIONS_REACHED(809),
    MPS_CLIENT_TERMINATED(810),
    CDP_NOT_SUPPORTED(811),
    CDP_VERSION_MISMATCH(812),
    STREAM_CAPTURE_UNSUPPORTED(900),
    STREAM_CAPTURE_INVALIDATED(901),
    STREAM_CAPTURE_MERGE(902),
    STREAM_CAPTURE_UNMATCHED(903),
    STREAM_CAPTURE_UNJOINED(904),
    STREAM_CAPTURE_ISOLATION(905),
    STREAM_CAPTURE_IMPLICIT(906),
    CAPTURED_EVENT(907),
    STREAM_CAPTURE_WRONG_THREAD(908),
    TIMEOUT(909),
    GRAPH_EXEC_UPDATE_FAILURE(910),
    EXTERNAL_DEVICE(911),
    INVALID_CLUSTER_SIZE(912),
    FUNCTION_NOT_LOADED(913),
    INVALID_RESOURCE_TYPE(914),
    INVALID_RESOURCE_CONFIGURATION(915),
    KEY_ROTATION(916),
    UNKNOWN(999),
    /** A code newer than this enum. */
    UNRECOGNIZED(-1);

    private static final Map<Integer, CudaError> BY_CODE = new HashMap<>();

    static {
        for (CudaError e : values()) {
            if (e != UNRECOGNIZED) {
                BY_CODE.put(e.code, e);
            }
        }
    }

    private final int code;

    CudaError(int code) {
        this.code = code;
    }

    /** The numeric {@code CUresult}; {@code -1} for {@link #UNRECOGNIZED}. */
    public int code() {
        return code;
    }

    /** The constant's name in {@code cuda.h}, e.g. {@code CUDA_ERROR_INVALID_CONTEXT}. */
    public String cudaName() {
        return switch (this) {
            case SUCCESS -> "CUDA_SUCCESS";
            case UNRECOGNIZED -> "CUDA_ERROR_UNRECOGNIZED";
            default -> "CUDA_ERROR_" + name();
        };
    }

    /** A short description derived from the name, for when the driver cannot describe the code itself. */
    public String fallbackDescription() {
        return this == UNRECOGNIZED ? "unrecognised error code" : name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /** The constant for {@code code}, or {@link #UNRECOGNIZED}. */
    public static CudaError of(int code) {
        return BY_CODE.getOrDefault(code, UNRECOGNIZED);
    }
}
