package org.cudaipc4j.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test that needs a CUDA driver and at least one device: tagged {@code gpu}, and disabled with the reason
 * "no CUDA driver or device" where there is none, so CI lists it as skipped. Where a GPU is required
 * ({@value GpuAvailable#REQUIRE_GPU_ENV}{@code =1}) neither the gate nor the test's own assumptions may skip it:
 * both fail instead ({@link GpuAvailable}, {@link RequiredAssumptions}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("gpu")
@ExtendWith({GpuAvailable.class, RequiredAssumptions.class})
public @interface GpuTest {}
