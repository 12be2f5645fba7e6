package org.cudaipc4j.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.ModuleCalls;

/**
 * A loaded CUDA module ({@code CUmodule}): PTX the driver JIT-compiles for the context's device on load (and
 * caches under {@code ~/.nv/ComputeCache}), or a cubin or fatbin image. Its {@link Kernel}s are valid until
 * {@link #close()}. Owned by its {@link Context}; thread-safe.
 */
public final class CudaModule extends ContextResource {
    private final MemorySegment handle;
    private final Map<String, Kernel> kernels = new ConcurrentHashMap<>();

    private CudaModule(Context context, MemorySegment handle) {
        super(context);
        this.handle = handle;
    }

    /**
     * Loads PTX text into {@code context} ({@code cuModuleLoadData}).
     *
     * @param context the context to load into
     * @param ptx the PTX text
     * @return the loaded module
     */
    public static CudaModule loadPtx(Context context, String ptx) {
        try (Arena arena = Arena.ofConfined()) {
            return load(context, arena.allocateFrom(ptx, StandardCharsets.UTF_8));
        }
    }

    /**
     * Loads a cubin or fatbin image into {@code context} ({@code cuModuleLoadData}).
     *
     * @param context the context to load into
     * @param image the cubin or fatbin bytes
     * @return the loaded module
     */
    public static CudaModule loadImage(Context context, byte[] image) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(image.length, 16);
            MemorySegment.copy(image, 0, copy, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, image.length);
            return load(context, copy);
        }
    }

    private static CudaModule load(Context context, MemorySegment image) {
        context.makeCurrent();
        MemorySegment handle;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = DriverCalls.pointerOut(arena);
            ModuleCalls.moduleLoadData(out, image);
            handle = DriverCalls.handle(out);
        }
        try {
            return new CudaModule(context, handle);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> ModuleCalls.moduleUnload(handle), e);
            throw e;
        }
    }

    /**
     * Loads the PTX resource at {@code resourcePath}, absolute (e.g. {@code /com/example/kernels.ptx}), of the
     * class loader and module of {@code owner}.
     *
     * @param context the context to load into
     * @param owner a class whose loader and module hold the resource
     * @param resourcePath the resource's absolute path
     * @return the loaded module
     * @throws IllegalArgumentException when there is no such resource
     */
    public static CudaModule loadResource(Context context, Class<?> owner, String resourcePath) {
        try (InputStream in = owner.getResourceAsStream(resourcePath)) {
            if (in == null) {
                throw new IllegalArgumentException("no PTX resource " + resourcePath + " on the class path");
            }
            return loadPtx(context, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read PTX resource " + resourcePath, e);
        }
    }

    /**
     * The kernel named {@code name} ({@code cuModuleGetFunction}, once per name).
     *
     * @param name the kernel's (mangled) name
     * @return the kernel
     * @throws CudaException with {@code CUDA_ERROR_NOT_FOUND} when the module has no such kernel
     */
    public Kernel function(String name) {
        requireOpen();
        return kernels.computeIfAbsent(name, n -> {
            context.makeCurrent();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = DriverCalls.pointerOut(arena);
                Cu.check(CudaFunction.cuModuleGetFunction.name() + "(" + n + ")",
                        ModuleCalls.cuModuleGetFunction(out, handle, arena.allocateFrom(n)));
                return new Kernel(this, n, DriverCalls.handle(out));
            }
        });
    }

    /** Unloads the module ({@code cuModuleUnload}); its kernels become unusable. */
    @Override
    void release() {
        context.makeCurrent();
        ModuleCalls.moduleUnload(handle);
    }

    @Override
    public String toString() {
        return "CUDA module on " + context.device();
    }
}
