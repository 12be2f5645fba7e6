package org.cudaipc4j.cuda;

import java.io.IOException;
import java.nio.file.Path;
import org.cudaipc4j.testing.ShippedPtx;
import org.cudaipc4j.testing.Toolchain;
import org.cudaipc4j.testing.ToolchainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test kernel's PTX loads on old drivers and is what scripts/build-ptx.sh makes from echo_args.cu today. */
class EchoArgsPtxTest {
    private static final String SOURCE = "cudaipc4j-cuda/src/test/cuda/echo_args.cu";
    private static final String SHIPPED = "cudaipc4j-cuda/src/test/resources/org/cudaipc4j/cuda/echo_args.ptx";

    @Test
    void testPtxKeepsTheIsaOldDriversLoad() throws IOException {
        ShippedPtx.assertLoadableByOldDrivers(SHIPPED);
    }

    @ToolchainTest(Toolchain.NVCC)
    @Test
    void testPtxMatchesItsSource(@TempDir Path tmp) throws IOException {
        ShippedPtx.assertFresh(SOURCE, SHIPPED, tmp);
    }
}
