package org.cudaipc4j.simpleipc.kernels;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.CudaModule;
import org.cudaipc4j.cuda.Device;

/**
 * Times the load of each given module image (PTX text for {@code .ptx}, else a cubin or fatbin) in a fresh
 * process, as the first load of a short-lived process pays it; prints {@code LOAD <file> <ms>}. Run it with and
 * without {@code CUDA_CACHE_DISABLE=1} to see what the driver's JIT cache saves.
 */
public final class ModuleLoadProbe {
    private ModuleLoadProbe() {}

    public static void main(String[] args) throws Exception {
        Cuda.init();
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            ctx.makeCurrent();
            for (String arg : args) {
                Path file = Path.of(arg);
                long t0 = System.nanoTime();
                CudaModule module = file.toString().endsWith(".ptx") ? CudaModule.loadPtx(ctx, Files.readString(file))
                        : CudaModule.loadImage(ctx, Files.readAllBytes(file));
                module.function(BuiltinKernels.FILL_BYTES_VEC16);
                double ms = (System.nanoTime() - t0) / 1e6;
                module.close();
                System.out.printf(Locale.ROOT, "LOAD %s %.2f%n", file.getFileName(), ms);
            }
        }
    }
}
