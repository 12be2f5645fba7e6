package org.cudaipc4j.tool.kernels;

import java.io.IOException;
import java.nio.file.Path;
import org.cudaipc4j.testing.ShippedPtx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped PTX is what scripts/build-ptx.sh makes from kernels.cu today, at an ISA old drivers load. */
class PtxFreshnessTest {
    @Test
    void shippedPtxMatchesTheSource(@TempDir Path tmp) throws IOException {
        ShippedPtx.assertFresh("cudaipc4j-tool/src/main/cuda/kernels.cu",
                "cudaipc4j-tool/src/main/resources/org/cudaipc4j/tool/kernels/kernels.ptx", tmp);
    }
}
