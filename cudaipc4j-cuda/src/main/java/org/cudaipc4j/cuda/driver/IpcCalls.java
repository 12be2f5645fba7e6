package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of the legacy IPC handles of device memory and events: for each {@link CudaFunction} of the area, a
 * raw call named as its export, which returns the {@code CUresult}, and a checked call named after its API
 * ({@code cuMemAlloc_v2}: {@code memAlloc}), which throws the function's {@linkplain CudaFunction#failure failure}
 * unless it returns {@code CUDA_SUCCESS}. Each invokes the {@code static final} handle of a holder class of its own
 * with {@code invokeExact}, linked on the first call or by {@link Prelink}.
 */
public final class IpcCalls {
    private IpcCalls() {}

    private static final class IpcGetMemHandle {
        static final MethodHandle H = CudaFunction.cuIpcGetMemHandle.link();
    }

    /** {@code CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)} */
    public static int cuIpcGetMemHandle(MemorySegment pHandle, long dptr) {
        try {
            return (int) IpcGetMemHandle.H.invokeExact(pHandle, dptr);
        } catch (Throwable t) {
            throw CudaFunction.cuIpcGetMemHandle.unexpected(t);
        }
    }

    /** {@link #cuIpcGetMemHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ipcGetMemHandle(MemorySegment pHandle, long dptr) {
        CudaFunction.cuIpcGetMemHandle.check(cuIpcGetMemHandle(pHandle, dptr));
    }

    private static final class IpcOpenMemHandle {
        static final MethodHandle H = CudaFunction.cuIpcOpenMemHandle_v2.link();
    }

    /** {@code CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)} */
    public static int cuIpcOpenMemHandle_v2(MemorySegment pdptr, byte[] handle, int flags) {
        try {
            return IpcHandleByValue.call(IpcOpenMemHandle.H, IpcHandleByValue.AS_STACK_WORDS, pdptr, handle, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuIpcOpenMemHandle_v2.unexpected(t);
        }
    }

    /** {@link #cuIpcOpenMemHandle_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ipcOpenMemHandle(MemorySegment pdptr, byte[] handle, int flags) {
        CudaFunction.cuIpcOpenMemHandle_v2.check(cuIpcOpenMemHandle_v2(pdptr, handle, flags));
    }

    private static final class IpcCloseMemHandle {
        static final MethodHandle H = CudaFunction.cuIpcCloseMemHandle.link();
    }

    /** {@code CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)} */
    public static int cuIpcCloseMemHandle(long dptr) {
        try {
            return (int) IpcCloseMemHandle.H.invokeExact(dptr);
        } catch (Throwable t) {
            throw CudaFunction.cuIpcCloseMemHandle.unexpected(t);
        }
    }

    /** {@link #cuIpcCloseMemHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ipcCloseMemHandle(long dptr) {
        CudaFunction.cuIpcCloseMemHandle.check(cuIpcCloseMemHandle(dptr));
    }

    private static final class IpcGetEventHandle {
        static final MethodHandle H = CudaFunction.cuIpcGetEventHandle.link();
    }

    /** {@code CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)} */
    public static int cuIpcGetEventHandle(MemorySegment pHandle, MemorySegment event) {
        try {
            return (int) IpcGetEventHandle.H.invokeExact(pHandle, event);
        } catch (Throwable t) {
            throw CudaFunction.cuIpcGetEventHandle.unexpected(t);
        }
    }

    /** {@link #cuIpcGetEventHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ipcGetEventHandle(MemorySegment pHandle, MemorySegment event) {
        CudaFunction.cuIpcGetEventHandle.check(cuIpcGetEventHandle(pHandle, event));
    }

    private static final class IpcOpenEventHandle {
        static final MethodHandle H = CudaFunction.cuIpcOpenEventHandle.link();
    }

    /** {@code CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)} */
    public static int cuIpcOpenEventHandle(MemorySegment phEvent, byte[] handle) {
        try {
            return IpcHandleByValue.call(IpcOpenEventHandle.H, IpcHandleByValue.AS_STACK_WORDS, phEvent, handle);
        } catch (Throwable t) {
            throw CudaFunction.cuIpcOpenEventHandle.unexpected(t);
        }
    }

    /** {@link #cuIpcOpenEventHandle}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ipcOpenEventHandle(MemorySegment phEvent, byte[] handle) {
        CudaFunction.cuIpcOpenEventHandle.check(cuIpcOpenEventHandle(phEvent, handle));
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuIpcGetMemHandle -> IpcGetMemHandle.H;
            case cuIpcOpenMemHandle_v2 -> IpcOpenMemHandle.H;
            case cuIpcCloseMemHandle -> IpcCloseMemHandle.H;
            case cuIpcGetEventHandle -> IpcGetEventHandle.H;
            case cuIpcOpenEventHandle -> IpcOpenEventHandle.H;
            default -> null;
        };
    }
}
