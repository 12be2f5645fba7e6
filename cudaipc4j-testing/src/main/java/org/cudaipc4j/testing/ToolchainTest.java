package org.cudaipc4j.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test that needs a part of the CUDA or NCCL toolchain ({@code nvcc}, {@code cuda.h}, {@code nccl.h}) but
 * no GPU: tagged {@code toolchain}, and disabled with the reason where that part is not found, so it runs wherever
 * the part is, CI included. Where a GPU is required ({@value GpuAvailable#REQUIRE_GPU_ENV}{@code =1}, the GPU
 * machine, which has the toolchain) a missing part fails the test instead, as for {@link GpuTest}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("toolchain")
@ExtendWith({ToolchainAvailable.class, RequiredAssumptions.class})
public @interface ToolchainTest {
    /** {@return the part the test needs} */
    Toolchain value();
}
