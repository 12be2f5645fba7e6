package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of error names, initialisation, devices and contexts: for each {@link CudaFunction} of the area, a
 * raw call named as its export, which returns the {@code CUresult}, and a checked call named after its API
 * ({@code cuMemAlloc_v2}: {@code memAlloc}), which throws the function's {@linkplain CudaFunction#failure failure}
 * unless it returns {@code CUDA_SUCCESS}. Each invokes the {@code static final} handle of a holder class of its own
 * with {@code invokeExact}, linked on the first call or by {@link Prelink}.
 */
public final class DeviceCalls {
    private DeviceCalls() {}

    private static final class GetErrorName {
        static final MethodHandle H = CudaFunction.cuGetErrorName.link();
    }

    /** {@code CUresult cuGetErrorName(CUresult error, const char **pStr)} */
    public static int cuGetErrorName(int error, MemorySegment pStr) {
        try {
            return (int) GetErrorName.H.invokeExact(error, pStr);
        } catch (Throwable t) {
            throw CudaFunction.cuGetErrorName.unexpected(t);
        }
    }

    /** {@link #cuGetErrorName}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void getErrorName(int error, MemorySegment pStr) {
        CudaFunction.cuGetErrorName.check(cuGetErrorName(error, pStr));
    }

    private static final class GetErrorString {
        static final MethodHandle H = CudaFunction.cuGetErrorString.link();
    }

    /** {@code CUresult cuGetErrorString(CUresult error, const char **pStr)} */
    public static int cuGetErrorString(int error, MemorySegment pStr) {
        try {
            return (int) GetErrorString.H.invokeExact(error, pStr);
        } catch (Throwable t) {
            throw CudaFunction.cuGetErrorString.unexpected(t);
        }
    }

    /** {@link #cuGetErrorString}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void getErrorString(int error, MemorySegment pStr) {
        CudaFunction.cuGetErrorString.check(cuGetErrorString(error, pStr));
    }

    private static final class Init {
        static final MethodHandle H = CudaFunction.cuInit.link();
    }

    /** {@code CUresult cuInit(unsigned int Flags)} */
    public static int cuInit(int flags) {
        try {
            return (int) Init.H.invokeExact(flags);
        } catch (Throwable t) {
            throw CudaFunction.cuInit.unexpected(t);
        }
    }

    /** {@link #cuInit}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void init(int flags) {
        CudaFunction.cuInit.check(cuInit(flags));
    }

    private static final class DriverGetVersion {
        static final MethodHandle H = CudaFunction.cuDriverGetVersion.link();
    }

    /** {@code CUresult cuDriverGetVersion(int *driverVersion)} */
    public static int cuDriverGetVersion(MemorySegment driverVersion) {
        try {
            return (int) DriverGetVersion.H.invokeExact(driverVersion);
        } catch (Throwable t) {
            throw CudaFunction.cuDriverGetVersion.unexpected(t);
        }
    }

    /** {@link #cuDriverGetVersion}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void driverGetVersion(MemorySegment driverVersion) {
        CudaFunction.cuDriverGetVersion.check(cuDriverGetVersion(driverVersion));
    }

    private static final class DeviceGetCount {
        static final MethodHandle H = CudaFunction.cuDeviceGetCount.link();
    }

    /** {@code CUresult cuDeviceGetCount(int *count)} */
    public static int cuDeviceGetCount(MemorySegment count) {
        try {
            return (int) DeviceGetCount.H.invokeExact(count);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceGetCount.unexpected(t);
        }
    }

    /** {@link #cuDeviceGetCount}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceGetCount(MemorySegment count) {
        CudaFunction.cuDeviceGetCount.check(cuDeviceGetCount(count));
    }

    private static final class DeviceGet {
        static final MethodHandle H = CudaFunction.cuDeviceGet.link();
    }

    /** {@code CUresult cuDeviceGet(CUdevice *device, int ordinal)} */
    public static int cuDeviceGet(MemorySegment device, int ordinal) {
        try {
            return (int) DeviceGet.H.invokeExact(device, ordinal);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceGet.unexpected(t);
        }
    }

    /** {@link #cuDeviceGet}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceGet(MemorySegment device, int ordinal) {
        CudaFunction.cuDeviceGet.check(cuDeviceGet(device, ordinal));
    }

    private static final class DeviceGetName {
        static final MethodHandle H = CudaFunction.cuDeviceGetName.link();
    }

    /** {@code CUresult cuDeviceGetName(char *name, int len, CUdevice dev)} */
    public static int cuDeviceGetName(MemorySegment name, int len, int dev) {
        try {
            return (int) DeviceGetName.H.invokeExact(name, len, dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceGetName.unexpected(t);
        }
    }

    /** {@link #cuDeviceGetName}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceGetName(MemorySegment name, int len, int dev) {
        CudaFunction.cuDeviceGetName.check(cuDeviceGetName(name, len, dev));
    }

    private static final class DeviceGetAttribute {
        static final MethodHandle H = CudaFunction.cuDeviceGetAttribute.link();
    }

    /** {@code CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)} */
    public static int cuDeviceGetAttribute(MemorySegment pi, int attrib, int dev) {
        try {
            return (int) DeviceGetAttribute.H.invokeExact(pi, attrib, dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceGetAttribute.unexpected(t);
        }
    }

    /** {@link #cuDeviceGetAttribute}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceGetAttribute(MemorySegment pi, int attrib, int dev) {
        CudaFunction.cuDeviceGetAttribute.check(cuDeviceGetAttribute(pi, attrib, dev));
    }

    private static final class DeviceTotalMem {
        static final MethodHandle H = CudaFunction.cuDeviceTotalMem_v2.link();
    }

    /** {@code CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)} */
    public static int cuDeviceTotalMem_v2(MemorySegment bytes, int dev) {
        try {
            return (int) DeviceTotalMem.H.invokeExact(bytes, dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceTotalMem_v2.unexpected(t);
        }
    }

    /** {@link #cuDeviceTotalMem_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceTotalMem(MemorySegment bytes, int dev) {
        CudaFunction.cuDeviceTotalMem_v2.check(cuDeviceTotalMem_v2(bytes, dev));
    }

    private static final class DeviceGetPCIBusId {
        static final MethodHandle H = CudaFunction.cuDeviceGetPCIBusId.link();
    }

    /** {@code CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)} */
    public static int cuDeviceGetPCIBusId(MemorySegment pciBusId, int len, int dev) {
        try {
            return (int) DeviceGetPCIBusId.H.invokeExact(pciBusId, len, dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceGetPCIBusId.unexpected(t);
        }
    }

    /** {@link #cuDeviceGetPCIBusId}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceGetPCIBusId(MemorySegment pciBusId, int len, int dev) {
        CudaFunction.cuDeviceGetPCIBusId.check(cuDeviceGetPCIBusId(pciBusId, len, dev));
    }

    private static final class DeviceCanAccessPeer {
        static final MethodHandle H = CudaFunction.cuDeviceCanAccessPeer.link();
    }

    /** {@code CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)} */
    public static int cuDeviceCanAccessPeer(MemorySegment canAccessPeer, int dev, int peerDev) {
        try {
            return (int) DeviceCanAccessPeer.H.invokeExact(canAccessPeer, dev, peerDev);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceCanAccessPeer.unexpected(t);
        }
    }

    /** {@link #cuDeviceCanAccessPeer}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceCanAccessPeer(MemorySegment canAccessPeer, int dev, int peerDev) {
        CudaFunction.cuDeviceCanAccessPeer.check(cuDeviceCanAccessPeer(canAccessPeer, dev, peerDev));
    }

    private static final class DeviceGetUuid {
        static final MethodHandle H = CudaFunction.cuDeviceGetUuid_v2.link();
    }

    /** {@code CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)} */
    public static int cuDeviceGetUuid_v2(MemorySegment uuid, int dev) {
        try {
            return (int) DeviceGetUuid.H.invokeExact(uuid, dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDeviceGetUuid_v2.unexpected(t);
        }
    }

    /** {@link #cuDeviceGetUuid_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void deviceGetUuid(MemorySegment uuid, int dev) {
        CudaFunction.cuDeviceGetUuid_v2.check(cuDeviceGetUuid_v2(uuid, dev));
    }

    private static final class DevicePrimaryCtxRetain {
        static final MethodHandle H = CudaFunction.cuDevicePrimaryCtxRetain.link();
    }

    /** {@code CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)} */
    public static int cuDevicePrimaryCtxRetain(MemorySegment pctx, int dev) {
        try {
            return (int) DevicePrimaryCtxRetain.H.invokeExact(pctx, dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDevicePrimaryCtxRetain.unexpected(t);
        }
    }

    /** {@link #cuDevicePrimaryCtxRetain}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void devicePrimaryCtxRetain(MemorySegment pctx, int dev) {
        CudaFunction.cuDevicePrimaryCtxRetain.check(cuDevicePrimaryCtxRetain(pctx, dev));
    }

    private static final class DevicePrimaryCtxRelease {
        static final MethodHandle H = CudaFunction.cuDevicePrimaryCtxRelease_v2.link();
    }

    /** {@code CUresult cuDevicePrimaryCtxRelease(CUdevice dev)} */
    public static int cuDevicePrimaryCtxRelease_v2(int dev) {
        try {
            return (int) DevicePrimaryCtxRelease.H.invokeExact(dev);
        } catch (Throwable t) {
            throw CudaFunction.cuDevicePrimaryCtxRelease_v2.unexpected(t);
        }
    }

    /** {@link #cuDevicePrimaryCtxRelease_v2}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void devicePrimaryCtxRelease(int dev) {
        CudaFunction.cuDevicePrimaryCtxRelease_v2.check(cuDevicePrimaryCtxRelease_v2(dev));
    }

    private static final class DevicePrimaryCtxGetState {
        static final MethodHandle H = CudaFunction.cuDevicePrimaryCtxGetState.link();
    }

    /** {@code CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)} */
    public static int cuDevicePrimaryCtxGetState(int dev, MemorySegment flags, MemorySegment active) {
        try {
            return (int) DevicePrimaryCtxGetState.H.invokeExact(dev, flags, active);
        } catch (Throwable t) {
            throw CudaFunction.cuDevicePrimaryCtxGetState.unexpected(t);
        }
    }

    /** {@link #cuDevicePrimaryCtxGetState}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void devicePrimaryCtxGetState(int dev, MemorySegment flags, MemorySegment active) {
        CudaFunction.cuDevicePrimaryCtxGetState.check(cuDevicePrimaryCtxGetState(dev, flags, active));
    }

    private static final class CtxSetCurrent {
        static final MethodHandle H = CudaFunction.cuCtxSetCurrent.link();
    }

    /** {@code CUresult cuCtxSetCurrent(CUcontext ctx)} */
    public static int cuCtxSetCurrent(MemorySegment ctx) {
        try {
            return (int) CtxSetCurrent.H.invokeExact(ctx);
        } catch (Throwable t) {
            throw CudaFunction.cuCtxSetCurrent.unexpected(t);
        }
    }

    /** {@link #cuCtxSetCurrent}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ctxSetCurrent(MemorySegment ctx) {
        CudaFunction.cuCtxSetCurrent.check(cuCtxSetCurrent(ctx));
    }

    private static final class CtxGetCurrent {
        static final MethodHandle H = CudaFunction.cuCtxGetCurrent.link();
    }

    /** {@code CUresult cuCtxGetCurrent(CUcontext *pctx)} */
    public static int cuCtxGetCurrent(MemorySegment pctx) {
        try {
            return (int) CtxGetCurrent.H.invokeExact(pctx);
        } catch (Throwable t) {
            throw CudaFunction.cuCtxGetCurrent.unexpected(t);
        }
    }

    /** {@link #cuCtxGetCurrent}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ctxGetCurrent(MemorySegment pctx) {
        CudaFunction.cuCtxGetCurrent.check(cuCtxGetCurrent(pctx));
    }

    private static final class CtxEnablePeerAccess {
        static final MethodHandle H = CudaFunction.cuCtxEnablePeerAccess.link();
    }

    /** {@code CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)} */
    public static int cuCtxEnablePeerAccess(MemorySegment peerContext, int flags) {
        try {
            return (int) CtxEnablePeerAccess.H.invokeExact(peerContext, flags);
        } catch (Throwable t) {
            throw CudaFunction.cuCtxEnablePeerAccess.unexpected(t);
        }
    }

    /** {@link #cuCtxEnablePeerAccess}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ctxEnablePeerAccess(MemorySegment peerContext, int flags) {
        CudaFunction.cuCtxEnablePeerAccess.check(cuCtxEnablePeerAccess(peerContext, flags));
    }

    private static final class CtxSynchronize {
        static final MethodHandle H = CudaFunction.cuCtxSynchronize.link();
    }

    /** {@code CUresult cuCtxSynchronize(void)} */
    public static int cuCtxSynchronize() {
        try {
            return (int) CtxSynchronize.H.invokeExact();
        } catch (Throwable t) {
            throw CudaFunction.cuCtxSynchronize.unexpected(t);
        }
    }

    /** {@link #cuCtxSynchronize}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void ctxSynchronize() {
        CudaFunction.cuCtxSynchronize.check(cuCtxSynchronize());
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuGetErrorName -> GetErrorName.H;
            case cuGetErrorString -> GetErrorString.H;
            case cuInit -> Init.H;
            case cuDriverGetVersion -> DriverGetVersion.H;
            case cuDeviceGetCount -> DeviceGetCount.H;
            case cuDeviceGet -> DeviceGet.H;
            case cuDeviceGetName -> DeviceGetName.H;
            case cuDeviceGetAttribute -> DeviceGetAttribute.H;
            case cuDeviceTotalMem_v2 -> DeviceTotalMem.H;
            case cuDeviceGetPCIBusId -> DeviceGetPCIBusId.H;
            case cuDeviceCanAccessPeer -> DeviceCanAccessPeer.H;
            case cuDeviceGetUuid_v2 -> DeviceGetUuid.H;
            case cuDevicePrimaryCtxRetain -> DevicePrimaryCtxRetain.H;
            case cuDevicePrimaryCtxRelease_v2 -> DevicePrimaryCtxRelease.H;
            case cuDevicePrimaryCtxGetState -> DevicePrimaryCtxGetState.H;
            case cuCtxSetCurrent -> CtxSetCurrent.H;
            case cuCtxGetCurrent -> CtxGetCurrent.H;
            case cuCtxEnablePeerAccess -> CtxEnablePeerAccess.H;
            case cuCtxSynchronize -> CtxSynchronize.H;
            default -> null;
        };
    }
}
