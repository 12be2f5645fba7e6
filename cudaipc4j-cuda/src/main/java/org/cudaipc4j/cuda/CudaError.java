package org.cudaipc4j.cuda;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.cudaipc4j.cuda.driver.CudaFunction;

/**
 * The {@code CUresult} codes of {@code cuda.h} (CUDA 13.0). Codes this enum does not know map to
 * {@link #UNRECOGNIZED}; {@link CudaException#code()} keeps the raw value.
 */
public enum CudaError {
    /** No error: the call succeeded. */
    SUCCESS(CudaFunction.CUDA_SUCCESS),
    /** An argument is out of its range of accepted values. */
    INVALID_VALUE(1),
    /** The driver could not allocate enough memory for the operation. */
    OUT_OF_MEMORY(2),
    /** The driver has not been initialised with {@code cuInit}, or that failed. */
    NOT_INITIALIZED(3),
    /** The driver is shutting down. */
    DEINITIALIZED(4),
    /** The profiler is not initialised for this run (for example under a profiling tool). */
    PROFILER_DISABLED(5),
    /** Deprecated: the profiler was not initialised. */
    PROFILER_NOT_INITIALIZED(6),
    /** Deprecated: profiling was already started. */
    PROFILER_ALREADY_STARTED(7),
    /** Deprecated: profiling was already stopped. */
    PROFILER_ALREADY_STOPPED(8),
    /** The loaded library is the stub driver of the toolkit, not a real driver. */
    STUB_LIBRARY(34),
    /** The call needs a newer driver than the one installed. */
    CALL_REQUIRES_NEWER_DRIVER(36),
    /** The device is unavailable: busy with another process in an exclusive mode, or in an error state. */
    DEVICE_UNAVAILABLE(46),
    /** No CUDA-capable device was found. */
    NO_DEVICE(100),
    /** The device ordinal or handle does not name a valid device. */
    INVALID_DEVICE(101),
    /** The device has no valid grid license. */
    DEVICE_NOT_LICENSED(102),
    /** The kernel image is invalid. */
    INVALID_IMAGE(200),
    /** No context is current, or the context handle is invalid. */
    INVALID_CONTEXT(201),
    /** Deprecated: the context was already current. */
    CONTEXT_ALREADY_CURRENT(202),
    /** A map or register operation failed. */
    MAP_FAILED(205),
    /** An unmap or unregister operation failed. */
    UNMAP_FAILED(206),
    /** The array is mapped and cannot be destroyed. */
    ARRAY_IS_MAPPED(207),
    /** The resource is already mapped. */
    ALREADY_MAPPED(208),
    /** No kernel image is available for this device. */
    NO_BINARY_FOR_GPU(209),
    /** The resource has already been acquired. */
    ALREADY_ACQUIRED(210),
    /** The resource is not mapped. */
    NOT_MAPPED(211),
    /** The mapped resource cannot be accessed as an array. */
    NOT_MAPPED_AS_ARRAY(212),
    /** The mapped resource cannot be accessed as a pointer. */
    NOT_MAPPED_AS_POINTER(213),
    /** An uncorrectable ECC error was detected. */
    ECC_UNCORRECTABLE(214),
    /** The limit is not supported by the device. */
    UNSUPPORTED_LIMIT(215),
    /** The context is already in use by another thread. */
    CONTEXT_ALREADY_IN_USE(216),
    /** Peer access is not supported between these devices. */
    PEER_ACCESS_UNSUPPORTED(217),
    /** The PTX could not be compiled. */
    INVALID_PTX(218),
    /** The OpenGL or DirectX context is invalid. */
    INVALID_GRAPHICS_CONTEXT(219),
    /** An uncorrectable NVLink error was detected. */
    NVLINK_UNCORRECTABLE(220),
    /** The PTX JIT compiler library was not found. */
    JIT_COMPILER_NOT_FOUND(221),
    /** The PTX was made by a newer toolchain than the driver supports. */
    UNSUPPORTED_PTX_VERSION(222),
    /** PTX JIT compilation is disabled. */
    JIT_COMPILATION_DISABLED(223),
    /** The execution affinity type is not supported. */
    UNSUPPORTED_EXEC_AFFINITY(224),
    /** The code uses device-side synchronisation, which the device does not support. */
    UNSUPPORTED_DEVSIDE_SYNC(225),
    /** An exception on the device was contained; the process must be restarted to use CUDA again. */
    CONTAINED(226),
    /** The device kernel source is invalid. */
    INVALID_SOURCE(300),
    /** The file was not found. */
    FILE_NOT_FOUND(301),
    /** A shared object symbol could not be resolved. */
    SHARED_OBJECT_SYMBOL_NOT_FOUND(302),
    /** A shared object failed to initialise. */
    SHARED_OBJECT_INIT_FAILED(303),
    /** An operating system call failed. */
    OPERATING_SYSTEM(304),
    /** A resource handle is invalid. */
    INVALID_HANDLE(400),
    /** The resource is not in a state the call accepts. */
    ILLEGAL_STATE(401),
    /** The answer to the query would lose information. */
    LOSSY_QUERY(402),
    /** A named symbol was not found. */
    NOT_FOUND(500),
    /** Asynchronous work has not finished yet (not an error). */
    NOT_READY(600),
    /** A kernel accessed an illegal address; the context can no longer be used. */
    ILLEGAL_ADDRESS(700),
    /** The launch asked for more resources (registers, shared memory) than the device has. */
    LAUNCH_OUT_OF_RESOURCES(701),
    /** The kernel ran past the device's time limit; the context can no longer be used. */
    LAUNCH_TIMEOUT(702),
    /** The launch used an incompatible texturing mode. */
    LAUNCH_INCOMPATIBLE_TEXTURING(703),
    /** Peer access to that context is already enabled. */
    PEER_ACCESS_ALREADY_ENABLED(704),
    /** Peer access to that context has not been enabled. */
    PEER_ACCESS_NOT_ENABLED(705),
    /** The primary context of the device is already active. */
    PRIMARY_CONTEXT_ACTIVE(708),
    /** The current context has been destroyed or was never initialised. */
    CONTEXT_IS_DESTROYED(709),
    /** A device-side assertion failed; the context can no longer be used. */
    ASSERT(710),
    /** The device has reached its limit of peer contexts. */
    TOO_MANY_PEERS(711),
    /** The host memory is already registered. */
    HOST_MEMORY_ALREADY_REGISTERED(712),
    /** The host memory is not registered. */
    HOST_MEMORY_NOT_REGISTERED(713),
    /** A kernel overflowed or corrupted the call stack; the context can no longer be used. */
    HARDWARE_STACK_ERROR(714),
    /** A kernel executed an illegal instruction; the context can no longer be used. */
    ILLEGAL_INSTRUCTION(715),
    /** A kernel accessed a misaligned address; the context can no longer be used. */
    MISALIGNED_ADDRESS(716),
    /** A kernel used an address outside its instruction's address space; the context can no longer be used. */
    INVALID_ADDRESS_SPACE(717),
    /** A kernel's program counter became invalid; the context can no longer be used. */
    INVALID_PC(718),
    /** A kernel failed while running; the context can no longer be used. */
    LAUNCH_FAILED(719),
    /** A cooperative launch asked for more blocks than can run at once. */
    COOPERATIVE_LAUNCH_TOO_LARGE(720),
    /** A kernel ended without freeing the tensor memory it allocated. */
    TENSOR_MEMORY_LEAK(721),
    /** The operation is not permitted. */
    NOT_PERMITTED(800),
    /** The operation is not supported on this system or device. */
    NOT_SUPPORTED(801),
    /** The system is not ready for CUDA work (for example its fabric manager is not running). */
    SYSTEM_NOT_READY(802),
    /** The kernel-mode driver and the CUDA driver library are of different versions. */
    SYSTEM_DRIVER_MISMATCH(803),
    /** Forward compatibility is not supported on this device. */
    COMPAT_NOT_SUPPORTED_ON_DEVICE(804),
    /** The MPS client could not connect to the MPS control daemon or server. */
    MPS_CONNECTION_FAILED(805),
    /** A remote procedure call between an MPS server and client failed. */
    MPS_RPC_FAILURE(806),
    /** The MPS server is not ready for clients. */
    MPS_SERVER_NOT_READY(807),
    /** The MPS server has reached its limit of clients. */
    MPS_MAX_CLIENTS_REACHED(808),
    /** The MPS device has reached its limit of client connections. */
    MPS_MAX_CONNECTIONS_REACHED(809),
    /** The MPS client was terminated by the server. */
    MPS_CLIENT_TERMINATED(810),
    /** The module uses CUDA dynamic parallelism, which the device does not support. */
    CDP_NOT_SUPPORTED(811),
    /** The module mixes two versions of CUDA dynamic parallelism. */
    CDP_VERSION_MISMATCH(812),
    /** The operation is not allowed while a stream is captured. */
    STREAM_CAPTURE_UNSUPPORTED(900),
    /** The stream capture was invalidated by an earlier error. */
    STREAM_CAPTURE_INVALIDATED(901),
    /** The operation would merge two separate captures. */
    STREAM_CAPTURE_MERGE(902),
    /** The capture was not started in this stream. */
    STREAM_CAPTURE_UNMATCHED(903),
    /** The capture forked into a stream that was not joined back. */
    STREAM_CAPTURE_UNJOINED(904),
    /** The operation would cross the capture's isolation boundary. */
    STREAM_CAPTURE_ISOLATION(905),
    /** The operation would depend implicitly on the capturing legacy stream. */
    STREAM_CAPTURE_IMPLICIT(906),
    /** The operation is not allowed on an event recorded in a capturing stream. */
    CAPTURED_EVENT(907),
    /** A capture in relaxed mode was ended from another thread. */
    STREAM_CAPTURE_WRONG_THREAD(908),
    /** The wait timed out. */
    TIMEOUT(909),
    /** The executable graph could not be updated in place. */
    GRAPH_EXEC_UPDATE_FAILURE(910),
    /** An asynchronous error happened in a device outside CUDA. */
    EXTERNAL_DEVICE(911),
    /** The kernel launch used an invalid cluster size. */
    INVALID_CLUSTER_SIZE(912),
    /** The function has not been loaded yet. */
    FUNCTION_NOT_LOADED(913),
    /** The resource type is invalid for the operation. */
    INVALID_RESOURCE_TYPE(914),
    /** The resources are configured in a way the operation does not accept. */
    INVALID_RESOURCE_CONFIGURATION(915),
    /** An error in key rotation of the encrypted channel between host and device. */
    KEY_ROTATION(916),
    /** An unknown internal error. */
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

    /** {@return the numeric {@code CUresult}; {@code -1} for {@link #UNRECOGNIZED}} */
    public int code() {
        return code;
    }

    /** {@return the constant's name in {@code cuda.h}, e.g. {@code CUDA_ERROR_INVALID_CONTEXT}} */
    public String cudaName() {
        return switch (this) {
            case SUCCESS -> "CUDA_SUCCESS";
            case UNRECOGNIZED -> "CUDA_ERROR_UNRECOGNIZED";
            default -> "CUDA_ERROR_" + name();
        };
    }

    /** {@return a short description derived from the name, for when the driver cannot describe the code itself} */
    public String fallbackDescription() {
        return this == UNRECOGNIZED ? "unrecognised error code" : name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /**
     * {@return the constant for {@code code}, or {@link #UNRECOGNIZED}}
     *
     * @param code a {@code CUresult}
     */
    public static CudaError of(int code) {
        return BY_CODE.getOrDefault(code, UNRECOGNIZED);
    }
}
