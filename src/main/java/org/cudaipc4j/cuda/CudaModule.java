package org.cudaipc4j.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.driver.CuDriver;

/**
 * A loaded CUDA module ({@code CUmodule}): PTX the driver JIT-compiles for the context's device on load (and
 * caches under {@code ~/.nv/ComputeCache}). Its {@link Kernel}s are valid until {@link #close()}.
 */
public final class CudaModule implements AutoCloseable {
    private final Context context;
    private final MemorySegment handle;
    private final Map<String, Kernel> kernels = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private CudaModule(Context context, MemorySegment handle) {
        this.context = context;
        this.handle = handle;
    }

    /** Loads PTX text into {@code context} ({@code cuModuleLoadData}). */
    public static CudaModule loadPtx(Context context, String ptx) {
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment image = arena.allocateFrom(ptx, StandardCharsets.UTF_8);
            MemorySegment out = Cu.pointerOut(arena);
            Cu.check("cuModuleLoadData", CuDriver.cuModuleLoadData(out, image));
            return new CudaModule(context, Cu.handle(out));
        }
    }

    /**
     * Loads the PTX class-path resource at {@code resourcePath} (absolute, e.g.
     * {@code /org/cudaipc4j/kernels/kernels.ptx}).
     *
     * @throws IllegalArgumentException when there is no such resource
     */
    public static CudaModule loadResource(Context context, String resourcePath) {
        try (InputStream in = CudaModule.class.getResourceAsStream(resourcePath)) {
            if (in == null) {
                throw new IllegalArgumentException("no PTX resource " + resourcePath + " on the class path");
            }
            return loadPtx(context, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read PTX resource " + resourcePath, e);
        }
    }

    public Context context() {
        return context;
    }

    /**
     * The kernel named {@code name} ({@code cuModuleGetFunction}, once per name).
     *
     * @throws CudaException with {@code CUDA_ERROR_NOT_FOUND} when the module has no such kernel
     */
    public Kernel function(String name) {
        requireOpen();
        return kernels.computeIfAbsent(name, n -> {
            context.makeCurrent();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = Cu.pointerOut(arena);
                Cu.check("cuModuleGetFunction(" + n + ")",
                        CuDriver.cuModuleGetFunction(out, handle, arena.allocateFrom(n)));
                return new Kernel(this, n, Cu.handle(out));
            }
        });
    }

    void requireOpen() {
        if (closed.get()) {
            throw new IllegalStateException("CUDA module is closed");
        }
    }

    /** Unloads the module ({@code cuModuleUnload}); its kernels become unusable. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            context.makeCurrent();
            Cu.check("cuModuleUnload", CuDriver.cuModuleUnload(handle));
        }
    }
}
