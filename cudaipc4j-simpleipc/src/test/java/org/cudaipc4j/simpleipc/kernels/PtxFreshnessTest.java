package org.cudaipc4j.simpleipc.kernels;

import java.io.IOException;
import java.nio.file.Path;
import org.cudaipc4j.testing.ShippedPtx;
import org.cudaipc4j.testing.Toolchain;
import org.cudaipc4j.testing.ToolchainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped PTX keeps an ISA old drivers load and is what scripts/build-ptx.sh makes from kernels.cu today. */
class PtxFreshnessTest {
    private static final String SOURCE = "cudaipc4j-simpleipc/src/main/cuda/kernels.cu";
    private static final String SHIPPED = "cudaipc4j-simpleipc/src/main/resources/org/cudaipc4j/simpleipc/kernels/kernels.ptx";

    @Test
    void shippedPtxKeepsTheIsaOldDriversLoad() throws IOException {
        ShippedPtx.assertLoadableByOldDrivers(SHIPPED);
    }

    @ToolchainTest(Toolchain.NVCC)
    @Test
    void shippedPtxMatchesTheSource(@TempDir Path tmp) throws IOException {
        ShippedPtx.assertFresh(SOURCE, SHIPPED, tmp);
    }
}
