package org.cudaipc4j.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** The parts of the toolchain a {@link ToolchainTest} may need, each with why it is missing here. */
public enum Toolchain {
    /** {@code nvcc} runs ({@link CudaToolkit#nvcc()}): PTX rebuilt from its source. */
    NVCC {
        @Override
        String missing() {
            return CudaToolkit.nvccRelease().isPresent() ? null : "no " + CudaToolkit.nvcc()
                    + " runs here (put the CUDA toolkit's nvcc on the PATH or set NVCC)";
        }
    },
    /** The CUDA toolkit's {@code cuda.h} ({@link CudaToolkit#header(String)}). */
    CUDA_H {
        @Override
        String missing() {
            return CudaToolkit.header("cuda.h").isPresent() ? null : CudaToolkit.headerMissing("cuda.h");
        }
    },
    /** NCCL's {@code nccl.h} ({@link Toolchain#ncclHeader()}). */
    NCCL_H {
        @Override
        String missing() {
            Path header = ncclHeader();
            return Files.isRegularFile(header) ? null : "no nccl.h at " + header
                    + " (install NCCL's development files or set NCCL_HOME to its folder)";
        }
    };

    /** Null when the part is here, else why not. */
    abstract String missing();

    /** {@return {@code $NCCL_HOME/include/nccl.h}, else {@code /usr/include/nccl.h}} */
    public static Path ncclHeader() {
        String home = System.getenv("NCCL_HOME");
        return Path.of(home == null || home.isBlank() ? "/usr" : home, "include", "nccl.h");
    }
}
