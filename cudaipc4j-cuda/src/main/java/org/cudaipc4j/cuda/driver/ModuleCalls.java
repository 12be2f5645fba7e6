package org.cudaipc4j.cuda.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The driver calls of modules, kernels and launches: for each {@link CudaFunction} of the area, a raw call named as its
 * export, which returns the {@code CUresult}, and a checked call named after its API ({@code cuMemAlloc_v2}:
 * {@code memAlloc}), which throws the function's {@linkplain CudaFunction#failure failure} unless it returns
 * {@code CUDA_SUCCESS}. Each invokes the {@code static final} handle of a holder class of its own with
 * {@code invokeExact}, linked on the first call or by {@link Prelink}.
 */
public final class ModuleCalls {
    private ModuleCalls() {}

    private static final class ModuleLoadData {
        static final MethodHandle H = CudaFunction.cuModuleLoadData.link();
    }

    /** {@code CUresult cuModuleLoadData(CUmodule *module, const void *image)} */
    public static int cuModuleLoadData(MemorySegment module, MemorySegment image) {
        try {
            return (int) ModuleLoadData.H.invokeExact(module, image);
        } catch (Throwable t) {
            throw CudaFunction.cuModuleLoadData.unexpected(t);
        }
    }

    /** {@link #cuModuleLoadData}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void moduleLoadData(MemorySegment module, MemorySegment image) {
        CudaFunction.cuModuleLoadData.check(cuModuleLoadData(module, image));
    }

    private static final class ModuleGetFunction {
        static final MethodHandle H = CudaFunction.cuModuleGetFunction.link();
    }

    /** {@code CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)} */
    public static int cuModuleGetFunction(MemorySegment hfunc, MemorySegment hmod, MemorySegment name) {
        try {
            return (int) ModuleGetFunction.H.invokeExact(hfunc, hmod, name);
        } catch (Throwable t) {
            throw CudaFunction.cuModuleGetFunction.unexpected(t);
        }
    }

    /** {@link #cuModuleGetFunction}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void moduleGetFunction(MemorySegment hfunc, MemorySegment hmod, MemorySegment name) {
        CudaFunction.cuModuleGetFunction.check(cuModuleGetFunction(hfunc, hmod, name));
    }

    private static final class ModuleUnload {
        static final MethodHandle H = CudaFunction.cuModuleUnload.link();
    }

    /** {@code CUresult cuModuleUnload(CUmodule hmod)} */
    public static int cuModuleUnload(MemorySegment hmod) {
        try {
            return (int) ModuleUnload.H.invokeExact(hmod);
        } catch (Throwable t) {
            throw CudaFunction.cuModuleUnload.unexpected(t);
        }
    }

    /** {@link #cuModuleUnload}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void moduleUnload(MemorySegment hmod) {
        CudaFunction.cuModuleUnload.check(cuModuleUnload(hmod));
    }

    private static final class LaunchKernel {
        static final MethodHandle H = CudaFunction.cuLaunchKernel.link();
    }

    /**
     * {@code CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
     * unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream
     * hStream, void **kernelParams, void **extra)}
     */
    public static int cuLaunchKernel(MemorySegment f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX,
                                     int blockDimY, int blockDimZ, int sharedMemBytes, MemorySegment hStream,
                                     MemorySegment kernelParams, MemorySegment extra) {
        try {
            return (int) LaunchKernel.H.invokeExact(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                    sharedMemBytes, hStream, kernelParams, extra);
        } catch (Throwable t) {
            throw CudaFunction.cuLaunchKernel.unexpected(t);
        }
    }

    /** {@link #cuLaunchKernel}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void launchKernel(MemorySegment f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX,
                                    int blockDimY, int blockDimZ, int sharedMemBytes, MemorySegment hStream,
                                    MemorySegment kernelParams, MemorySegment extra) {
        CudaFunction.cuLaunchKernel.check(cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                blockDimZ, sharedMemBytes, hStream, kernelParams, extra));
    }

    private static final class OccupancyMaxActiveBlocksPerMultiprocessor {
        static final MethodHandle H = CudaFunction.cuOccupancyMaxActiveBlocksPerMultiprocessor.link();
    }

    /**
     * {@code CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
     * size_t dynamicSMemSize)}
     */
    public static int cuOccupancyMaxActiveBlocksPerMultiprocessor(MemorySegment numBlocks, MemorySegment func,
                                                                  int blockSize, long dynamicSMemSize) {
        try {
            return (int) OccupancyMaxActiveBlocksPerMultiprocessor.H.invokeExact(numBlocks, func, blockSize,
                    dynamicSMemSize);
        } catch (Throwable t) {
            throw CudaFunction.cuOccupancyMaxActiveBlocksPerMultiprocessor.unexpected(t);
        }
    }

    /** {@link #cuOccupancyMaxActiveBlocksPerMultiprocessor}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void occupancyMaxActiveBlocksPerMultiprocessor(MemorySegment numBlocks, MemorySegment func,
                                                                 int blockSize, long dynamicSMemSize) {
        CudaFunction.cuOccupancyMaxActiveBlocksPerMultiprocessor.check(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                numBlocks, func, blockSize, dynamicSMemSize));
    }

    private static final class FuncGetAttribute {
        static final MethodHandle H = CudaFunction.cuFuncGetAttribute.link();
    }

    /** {@code CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)} */
    public static int cuFuncGetAttribute(MemorySegment pi, int attrib, MemorySegment hfunc) {
        try {
            return (int) FuncGetAttribute.H.invokeExact(pi, attrib, hfunc);
        } catch (Throwable t) {
            throw CudaFunction.cuFuncGetAttribute.unexpected(t);
        }
    }

    /** {@link #cuFuncGetAttribute}, checked: throws unless it returns {@code CUDA_SUCCESS} */
    public static void funcGetAttribute(MemorySegment pi, int attrib, MemorySegment hfunc) {
        CudaFunction.cuFuncGetAttribute.check(cuFuncGetAttribute(pi, attrib, hfunc));
    }

    /** {@return the handle of {@code function}, linked now unless it is; null when this class does not call it} */
    static MethodHandle handle(CudaFunction function) {
        return switch (function) {
            case cuModuleLoadData -> ModuleLoadData.H;
            case cuModuleGetFunction -> ModuleGetFunction.H;
            case cuModuleUnload -> ModuleUnload.H;
            case cuLaunchKernel -> LaunchKernel.H;
            case cuOccupancyMaxActiveBlocksPerMultiprocessor -> OccupancyMaxActiveBlocksPerMultiprocessor.H;
            case cuFuncGetAttribute -> FuncGetAttribute.H;
            default -> null;
        };
    }
}
