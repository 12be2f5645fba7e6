package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sample tests that {@link GateTest} runs in a child JVM through {@link SampleRun}; named so that neither Maven nor
 * the console launcher picks them up as tests of their own.
 */
final class GateSamples {
    static final String REASON = "python3 cannot import a module";

    private GateSamples() {}

    @GpuTest
    static class OnGpu {
        @Test
        void runs() {}
    }

    @GpuTest
    static class AssumingOnGpu {
        @Test
        void assumes() {
            assumeTrue(false, REASON);
        }
    }

    @ToolchainTest(Toolchain.NVCC)
    static class WithNvcc {
        @Test
        void runs() {}
    }

    static class WithNcclHeader {
        @ToolchainTest(Toolchain.NCCL_H)
        @Test
        void runs() {}

        @Test
        void needsNothing() {}
    }

    @ExtendWith(RequiredAssumptions.class)
    static class Assuming {
        @Test
        void assumes() {
            assumeTrue(false, REASON);
        }

        @Test
        void fails() {
            throw new AssertionError("a real failure");
        }

        @Test
        void passes() {}
    }

    @ExtendWith(RequiredAssumptions.class)
    static class AssumingBeforeEach {
        @BeforeEach
        void assume() {
            assumeTrue(false, REASON);
        }

        @Test
        void runs() {}
    }

    @ExtendWith(RequiredAssumptions.class)
    static class AssumingBeforeAll {
        @BeforeAll
        static void assume() {
            assumeTrue(false, REASON);
        }

        @Test
        void runs() {}
    }
}
