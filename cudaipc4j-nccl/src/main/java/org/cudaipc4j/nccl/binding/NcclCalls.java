package org.cudaipc4j.nccl.binding;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The calls into the bound NCCL library ({@link NcclLibrary#bind}), one static method per {@link NcclFunction} (all
 * but {@code ncclGetVersion}, which is read from a file before it is bound: {@link NcclLibrary#ncclGetVersion}).
 * Each returns what the C function returns, unchecked: the checked layer above the binding ({@code Nccl}) turns a
 * result into an exception. Each invokes the {@code static final} handle of a holder class of its own with
 * {@code invokeExact} on the declared primitive and segment types, so nothing is boxed and the JIT sees a constant;
 * a holder links its function on the first call (linking a downcall costs milliseconds, and a rank uses only some
 * functions), and a function the library lacks throws the bound library's exception for it at each call.
 */
public final class NcclCalls {
    private NcclCalls() {}

    private static final class GetUniqueId {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclGetUniqueId);
    }

    /** {@code ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId)} */
    public static int ncclGetUniqueId(MemorySegment uniqueId) {
        try {
            return (int) GetUniqueId.H.invokeExact(uniqueId);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclGetUniqueId, t);
        }
    }

    private static final class GetErrorString {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclGetErrorString);
    }

    /** {@code const char* ncclGetErrorString(ncclResult_t result)} */
    public static MemorySegment ncclGetErrorString(int result) {
        try {
            return (MemorySegment) GetErrorString.H.invokeExact(result);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclGetErrorString, t);
        }
    }

    private static final class GetLastError {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclGetLastError);
    }

    /** {@code const char* ncclGetLastError(ncclComm_t comm)} */
    public static MemorySegment ncclGetLastError(MemorySegment comm) {
        try {
            return (MemorySegment) GetLastError.H.invokeExact(comm);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclGetLastError, t);
        }
    }

    private static final class CommInitRankConfig {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommInitRankConfig);
    }

    /**
     * {@code ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank,
     * ncclConfig_t* config)}
     */
    public static int ncclCommInitRankConfig(MemorySegment comm, int nranks, MemorySegment commId, int rank,
                                             MemorySegment config) {
        try {
            return (int) CommInitRankConfig.H.invokeExact(comm, nranks, commId, rank, config);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommInitRankConfig, t);
        }
    }

    private static final class CommSplit {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommSplit);
    }

    /**
     * {@code ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config)
     * }
     */
    public static int ncclCommSplit(MemorySegment comm, int color, int key, MemorySegment newcomm,
                                    MemorySegment config) {
        try {
            return (int) CommSplit.H.invokeExact(comm, color, key, newcomm, config);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommSplit, t);
        }
    }

    private static final class CommFinalize {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommFinalize);
    }

    /** {@code ncclResult_t ncclCommFinalize(ncclComm_t comm)} */
    public static int ncclCommFinalize(MemorySegment comm) {
        try {
            return (int) CommFinalize.H.invokeExact(comm);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommFinalize, t);
        }
    }

    private static final class CommDestroy {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommDestroy);
    }

    /** {@code ncclResult_t ncclCommDestroy(ncclComm_t comm)} */
    public static int ncclCommDestroy(MemorySegment comm) {
        try {
            return (int) CommDestroy.H.invokeExact(comm);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommDestroy, t);
        }
    }

    private static final class CommAbort {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommAbort);
    }

    /** {@code ncclResult_t ncclCommAbort(ncclComm_t comm)} */
    public static int ncclCommAbort(MemorySegment comm) {
        try {
            return (int) CommAbort.H.invokeExact(comm);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommAbort, t);
        }
    }

    private static final class CommGetAsyncError {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommGetAsyncError);
    }

    /** {@code ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* asyncError)} */
    public static int ncclCommGetAsyncError(MemorySegment comm, MemorySegment asyncError) {
        try {
            return (int) CommGetAsyncError.H.invokeExact(comm, asyncError);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommGetAsyncError, t);
        }
    }

    private static final class CommCount {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommCount);
    }

    /** {@code ncclResult_t ncclCommCount(const ncclComm_t comm, int* count)} */
    public static int ncclCommCount(MemorySegment comm, MemorySegment count) {
        try {
            return (int) CommCount.H.invokeExact(comm, count);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommCount, t);
        }
    }

    private static final class CommCuDevice {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommCuDevice);
    }

    /** {@code ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device)} */
    public static int ncclCommCuDevice(MemorySegment comm, MemorySegment device) {
        try {
            return (int) CommCuDevice.H.invokeExact(comm, device);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommCuDevice, t);
        }
    }

    private static final class CommUserRank {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommUserRank);
    }

    /** {@code ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank)} */
    public static int ncclCommUserRank(MemorySegment comm, MemorySegment rank) {
        try {
            return (int) CommUserRank.H.invokeExact(comm, rank);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommUserRank, t);
        }
    }

    private static final class CommRegister {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommRegister);
    }

    /** {@code ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t size, void** handle)} */
    public static int ncclCommRegister(MemorySegment comm, MemorySegment buff, long size, MemorySegment handle) {
        try {
            return (int) CommRegister.H.invokeExact(comm, buff, size, handle);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommRegister, t);
        }
    }

    private static final class CommDeregister {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclCommDeregister);
    }

    /** {@code ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* handle)} */
    public static int ncclCommDeregister(MemorySegment comm, MemorySegment handle) {
        try {
            return (int) CommDeregister.H.invokeExact(comm, handle);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclCommDeregister, t);
        }
    }

    private static final class Broadcast {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclBroadcast);
    }

    /**
     * {@code ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
     * int root, ncclComm_t comm, cudaStream_t stream)}
     */
    public static int ncclBroadcast(MemorySegment sendbuff, MemorySegment recvbuff, long count, int datatype, int root,
                                    MemorySegment comm, MemorySegment stream) {
        try {
            return (int) Broadcast.H.invokeExact(sendbuff, recvbuff, count, datatype, root, comm, stream);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclBroadcast, t);
        }
    }

    private static final class AllReduce {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclAllReduce);
    }

    /**
     * {@code ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
     * ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)}
     */
    public static int ncclAllReduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, int datatype, int op,
                                    MemorySegment comm, MemorySegment stream) {
        try {
            return (int) AllReduce.H.invokeExact(sendbuff, recvbuff, count, datatype, op, comm, stream);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclAllReduce, t);
        }
    }

    private static final class ReduceScatter {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclReduceScatter);
    }

    /**
     * {@code ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t
     * datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)}
     */
    public static int ncclReduceScatter(MemorySegment sendbuff, MemorySegment recvbuff, long recvcount, int datatype,
                                        int op, MemorySegment comm, MemorySegment stream) {
        try {
            return (int) ReduceScatter.H.invokeExact(sendbuff, recvbuff, recvcount, datatype, op, comm, stream);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclReduceScatter, t);
        }
    }

    private static final class AllGather {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclAllGather);
    }

    /**
     * {@code ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t
     * datatype, ncclComm_t comm, cudaStream_t stream)}
     */
    public static int ncclAllGather(MemorySegment sendbuff, MemorySegment recvbuff, long sendcount, int datatype,
                                    MemorySegment comm, MemorySegment stream) {
        try {
            return (int) AllGather.H.invokeExact(sendbuff, recvbuff, sendcount, datatype, comm, stream);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclAllGather, t);
        }
    }

    private static final class Send {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclSend);
    }

    /**
     * {@code ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t
     * comm, cudaStream_t stream)}
     */
    public static int ncclSend(MemorySegment sendbuff, long count, int datatype, int peer, MemorySegment comm,
                               MemorySegment stream) {
        try {
            return (int) Send.H.invokeExact(sendbuff, count, datatype, peer, comm, stream);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclSend, t);
        }
    }

    private static final class Recv {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclRecv);
    }

    /**
     * {@code ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
     * cudaStream_t stream)}
     */
    public static int ncclRecv(MemorySegment recvbuff, long count, int datatype, int peer, MemorySegment comm,
                               MemorySegment stream) {
        try {
            return (int) Recv.H.invokeExact(recvbuff, count, datatype, peer, comm, stream);
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclRecv, t);
        }
    }

    private static final class GroupStart {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclGroupStart);
    }

    /** {@code ncclResult_t ncclGroupStart(void)} */
    public static int ncclGroupStart() {
        try {
            return (int) GroupStart.H.invokeExact();
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclGroupStart, t);
        }
    }

    private static final class GroupEnd {
        static final MethodHandle H = NcclLibrary.link(NcclFunction.ncclGroupEnd);
    }

    /** {@code ncclResult_t ncclGroupEnd(void)} */
    public static int ncclGroupEnd() {
        try {
            return (int) GroupEnd.H.invokeExact();
        } catch (Throwable t) {
            throw unexpected(NcclFunction.ncclGroupEnd, t);
        }
    }

    /**
     * {@return what to throw for {@code t}, thrown by a call of {@code function}: a runtime exception as it is, a
     * checked one (no downcall declares any) wrapped with the function's name} An error is rethrown at once.
     */
    static RuntimeException unexpected(NcclFunction function, Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(function.name() + ": " + t, t);
    }
}
