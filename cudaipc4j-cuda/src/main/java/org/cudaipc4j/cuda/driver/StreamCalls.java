package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of streams and events: for each {@link CudaFunction} of the area, a raw call named as its export,
 * which returns the {@code CUresult}, and a checked call named after its API ({@code cuMemAlloc_v2}: {@code memAlloc}),
 * which throws the function's {@linkplain CudaFunction#failure failure} unless it returns {@code CUDA_SUCCESS}. Each
 * invokes the {@code static final} handle of a holder class of its own with {@code invokeExact}, linked on the first
 * call or by {@link Prelink}.
 */
public final class StreamCalls {
    private StreamCalls() {}

    private static final class StreamCreate {
        static final MethodHandle H = CudaFunction.cuStreamCreate.link();
    }

    /** {@code CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)} */
    public static int cuStreamCreate(MemorySegment phStream, int flags) {
        try {
            return (int) StreamCreate.H.invokeExact(phStream, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamCreate.unexpected(t);
        }
    }

    /** {@link #cuStreamCreate}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamCreate(MemorySegment phStream, int flags) {
        CudaFunction.cuStreamCreate.check(cuStreamCreate(phStream, flags));
    }

    private static final class StreamWaitEvent {
        static final MethodHandle H = CudaFunction.cuStreamWaitEvent.link();
    }

    /** {@code CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)} */
    public static int cuStreamWaitEvent(MemorySegment hStream, MemorySegment hEvent, int flags) {
        try {
            return (int) StreamWaitEvent.H.invokeExact(hStream, hEvent, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamWaitEvent.unexpected(t);
        }
    }

    /** {@link #cuStreamWaitEvent}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamWaitEvent(MemorySegment hStream, MemorySegment hEvent, int flags) {
        CudaFunction.cuStreamWaitEvent.check(cuStreamWaitEvent(hStream, hEvent, flags));
    }

    private static final class StreamSynchronize {
        static final MethodHandle H = CudaFunction.cuStreamSynchronize.link();
    }

    /** {@code CUresult cuStreamSynchronize(CUstream hStream)} */
    public static int cuStreamSynchronize(MemorySegment hStream) {
        try {
            return (int) StreamSynchronize.H.invokeExact(hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamSynchronize.unexpected(t);
        }
    }

    /** {@link #cuStreamSynchronize}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamSynchronize(MemorySegment hStream) {
        CudaFunction.cuStreamSynchronize.check(cuStreamSynchronize(hStream));
    }

    private static final class StreamDestroy {
        static final MethodHandle H = CudaFunction.cuStreamDestroy_v2.link();
    }

    /** {@code CUresult cuStreamDestroy(CUstream hStream)} */
    public static int cuStreamDestroy_v2(MemorySegment hStream) {
        try {
            return (int) StreamDestroy.H.invokeExact(hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamDestroy_v2.unexpected(t);
        }
    }

    /** {@link #cuStreamDestroy_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamDestroy(MemorySegment hStream) {
        CudaFunction.cuStreamDestroy_v2.check(cuStreamDestroy_v2(hStream));
    }

    private static final class StreamWaitValue32 {
        static final MethodHandle H = CudaFunction.cuStreamWaitValue32_v2.link();
    }

    /** {@code CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)} */
    public static int cuStreamWaitValue32_v2(MemorySegment stream, long addr, int value, int flags) {
        try {
            return (int) StreamWaitValue32.H.invokeExact(stream, addr, value, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamWaitValue32_v2.unexpected(t);
        }
    }

    /** {@link #cuStreamWaitValue32_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamWaitValue32(MemorySegment stream, long addr, int value, int flags) {
        CudaFunction.cuStreamWaitValue32_v2.check(cuStreamWaitValue32_v2(stream, addr, value, flags));
    }

    private static final class StreamWriteValue32 {
        static final MethodHandle H = CudaFunction.cuStreamWriteValue32_v2.link();
    }

    /**
     * {@code CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)}
     */
    public static int cuStreamWriteValue32_v2(MemorySegment stream, long addr, int value, int flags) {
        try {
            return (int) StreamWriteValue32.H.invokeExact(stream, addr, value, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamWriteValue32_v2.unexpected(t);
        }
    }

    /** {@link #cuStreamWriteValue32_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamWriteValue32(MemorySegment stream, long addr, int value, int flags) {
        CudaFunction.cuStreamWriteValue32_v2.check(cuStreamWriteValue32_v2(stream, addr, value, flags));
    }

    private static final class EventCreate {
        static final MethodHandle H = CudaFunction.cuEventCreate.link();
    }

    /** {@code CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)} */
    public static int cuEventCreate(MemorySegment phEvent, int flags) {
        try {
            return (int) EventCreate.H.invokeExact(phEvent, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuEventCreate.unexpected(t);
        }
    }

    /** {@link #cuEventCreate}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void eventCreate(MemorySegment phEvent, int flags) {
        CudaFunction.cuEventCreate.check(cuEventCreate(phEvent, flags));
    }

    private static final class EventRecord {
        static final MethodHandle H = CudaFunction.cuEventRecord.link();
    }

    /** {@code CUresult cuEventRecord(CUevent hEvent, CUstream hStream)} */
    public static int cuEventRecord(MemorySegment hEvent, MemorySegment hStream) {
        try {
            return (int) EventRecord.H.invokeExact(hEvent, hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuEventRecord.unexpected(t);
        }
    }

    /** {@link #cuEventRecord}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void eventRecord(MemorySegment hEvent, MemorySegment hStream) {
        CudaFunction.cuEventRecord.check(cuEventRecord(hEvent, hStream));
    }

    private static final class EventSynchronize {
        static final MethodHandle H = CudaFunction.cuEventSynchronize.link();
    }

    /** {@code CUresult cuEventSynchronize(CUevent hEvent)} */
    public static int cuEventSynchronize(MemorySegment hEvent) {
        try {
            return (int) EventSynchronize.H.invokeExact(hEvent);
        } catch (Throwable t) {
            throw CudaFunction.cuEventSynchronize.unexpected(t);
        }
    }

    /** {@link #cuEventSynchronize}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void eventSynchronize(MemorySegment hEvent) {
        CudaFunction.cuEventSynchronize.check(cuEventSynchronize(hEvent));
    }

    private static final class EventQuery {
        static final MethodHandle H = CudaFunction.cuEventQuery.link();
    }

    /** {@code CUresult cuEventQuery(CUevent hEvent)} */
    public static int cuEventQuery(MemorySegment hEvent) {
        try {
            return (int) EventQuery.H.invokeExact(hEvent);
        } catch (Throwable t) {
            throw CudaFunction.cuEventQuery.unexpected(t);
        }
    }

    /** {@link #cuEventQuery}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void eventQuery(MemorySegment hEvent) {
        CudaFunction.cuEventQuery.check(cuEventQuery(hEvent));
    }

    private static final class StreamQuery {
        static final MethodHandle H = CudaFunction.cuStreamQuery.link();
    }

    /** {@code CUresult cuStreamQuery(CUstream hStream)} */
    public static int cuStreamQuery(MemorySegment hStream) {
        try {
            return (int) StreamQuery.H.invokeExact(hStream);
        } catch (Throwable t) {
            throw CudaFunction.cuStreamQuery.unexpected(t);
        }
    }

    /** {@link #cuStreamQuery}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void streamQuery(MemorySegment hStream) {
        CudaFunction.cuStreamQuery.check(cuStreamQuery(hStream));
    }

    private static final class EventElapsedTime {
        static final MethodHandle H = CudaFunction.cuEventElapsedTime_v2.link();
    }

    /**
     * {@code CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)} (or
     * {@code cuEventElapsedTime}: {@link CudaFunction#fallback})
     */
    public static int cuEventElapsedTime_v2(MemorySegment pMilliseconds, MemorySegment hStart, MemorySegment hEnd) {
        try {
            return (int) EventElapsedTime.H.invokeExact(pMilliseconds, hStart, hEnd);
        } catch (Throwable t) {
            throw CudaFunction.cuEventElapsedTime_v2.unexpected(t);
        }
    }

    /** {@link #cuEventElapsedTime_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void eventElapsedTime(MemorySegment pMilliseconds, MemorySegment hStart, MemorySegment hEnd) {
        CudaFunction.cuEventElapsedTime_v2.check(cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd));
    }

    private static final class EventDestroy {
        static final MethodHandle H = CudaFunction.cuEventDestroy_v2.link();
    }

    /** {@code CUresult cuEventDestroy(CUevent hEvent)} */
    public static int cuEventDestroy_v2(MemorySegment hEvent) {
        try {
            return (int) EventDestroy.H.invokeExact(hEvent);
        } catch (Throwable t) {
            throw CudaFunction.cuEventDestroy_v2.unexpected(t);
        }
    }

    /** {@link #cuEventDestroy_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void eventDestroy(MemorySegment hEvent) {
        CudaFunction.cuEventDestroy_v2.check(cuEventDestroy_v2(hEvent));
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuStreamCreate -> StreamCreate.H;
            case cuStreamWaitEvent -> StreamWaitEvent.H;
            case cuStreamSynchronize -> StreamSynchronize.H;
            case cuStreamDestroy_v2 -> StreamDestroy.H;
            case cuStreamWaitValue32_v2 -> StreamWaitValue32.H;
            case cuStreamWriteValue32_v2 -> StreamWriteValue32.H;
            case cuEventCreate -> EventCreate.H;
            case cuEventRecord -> EventRecord.H;
            case cuEventSynchronize -> EventSynchronize.H;
            case cuEventQuery -> EventQuery.H;
            case cuStreamQuery -> StreamQuery.H;
            case cuEventElapsedTime_v2 -> EventElapsedTime.H;
            case cuEventDestroy_v2 -> EventDestroy.H;
            default -> null;
        };
    }
}
