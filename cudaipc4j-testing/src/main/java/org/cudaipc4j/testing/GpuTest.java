package org.cudaipc4j.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test that needs a CUDA driver and at least one device: tagged {@code gpu}, and disabled with the reason
 * "no CUDA driver or device" where there is none, so CI lists it as skipped.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("gpu")
@ExtendWith(GpuAvailable.class)
public @interface GpuTest {}
