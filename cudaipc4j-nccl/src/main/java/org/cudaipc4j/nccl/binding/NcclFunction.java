package org.cudaipc4j.nccl.binding;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;

/**
 * Every {@code libnccl.so.2} function the library calls, each declared once: the constant's name is the exported
 * symbol, its descriptor the C signature {@value #HEADER} gives it for Linux LP64 (a test checks each against the
 * header). {@link NcclCalls} calls each through a handle linked from its constant, and errors name a function by its
 * constant, so the symbol, its signature and the name in an error message cannot disagree.
 *
 * <p>C types map as: {@code ncclResult_t}, {@code int}, {@code ncclDataType_t} and {@code ncclRedOp_t} to
 * {@code JAVA_INT}; {@code size_t} to {@code JAVA_LONG}; pointers, {@code ncclComm_t} and {@code cudaStream_t} to
 * {@code ADDRESS}; {@code ncclUniqueId}, passed by value, to {@link NcclLayouts#UNIQUE_ID}.
 */
public enum NcclFunction {
    /** {@code ncclResult_t ncclGetVersion(int* version)} */
    ncclGetVersion(JAVA_INT, ADDRESS),
    /** {@code ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId)} */
    ncclGetUniqueId(JAVA_INT, ADDRESS),
    /** {@code const char* ncclGetErrorString(ncclResult_t result)} */
    ncclGetErrorString(ADDRESS, JAVA_INT),
    /** {@code const char* ncclGetLastError(ncclComm_t comm)} */
    ncclGetLastError(ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank,
     * ncclConfig_t* config)}
     */
    ncclCommInitRankConfig(JAVA_INT, ADDRESS, JAVA_INT, NcclLayouts.UNIQUE_ID, JAVA_INT, ADDRESS),
    /**
     * {@code ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
     * ncclConfig_t* config)}
     */
    ncclCommSplit(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code ncclResult_t ncclCommFinalize(ncclComm_t comm)} */
    ncclCommFinalize(JAVA_INT, ADDRESS),
    /** {@code ncclResult_t ncclCommDestroy(ncclComm_t comm)} */
    ncclCommDestroy(JAVA_INT, ADDRESS),
    /** {@code ncclResult_t ncclCommAbort(ncclComm_t comm)} */
    ncclCommAbort(JAVA_INT, ADDRESS),
    /** {@code ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)} */
    ncclCommGetAsyncError(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code ncclResult_t ncclCommCount(const ncclComm_t comm, int* count)} */
    ncclCommCount(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device)} */
    ncclCommCuDevice(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank)} */
    ncclCommUserRank(JAVA_INT, ADDRESS, ADDRESS),
    /** {@code ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t size, void** handle)} */
    ncclCommRegister(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS),
    /** {@code ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* handle)} */
    ncclCommDeregister(JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
     * int root, ncclComm_t comm, cudaStream_t stream)}
     */
    ncclBroadcast(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
     * ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)}
     */
    ncclAllReduce(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
     * ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)}
     */
    ncclReduceScatter(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
     * ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)}
     */
    ncclAllGather(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
     * ncclComm_t comm, cudaStream_t stream)}
     */
    ncclSend(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
     * ncclComm_t comm, cudaStream_t stream)}
     */
    ncclRecv(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code ncclResult_t ncclGroupStart()} */
    ncclGroupStart(JAVA_INT),
    /** {@code ncclResult_t ncclGroupEnd()} */
    ncclGroupEnd(JAVA_INT);

    /** The header that declares every function here. */
    public static final String HEADER = "nccl.h";

    private final FunctionDescriptor descriptor;

    NcclFunction(MemoryLayout returns, MemoryLayout... parameters) {
        this.descriptor = FunctionDescriptor.of(returns, parameters);
    }

    /** {@return the C signature as an FFM descriptor} */
    public FunctionDescriptor descriptor() {
        return descriptor;
    }

    /** {@return true when the function returns an {@code ncclResult_t} (all but the two that return a string)} */
    public boolean returnsResult() {
        return descriptor.returnLayout().orElseThrow().equals(JAVA_INT);
    }
}
