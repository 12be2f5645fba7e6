package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cudaipc4j.testing.CudaToolkit;
import org.cudaipc4j.testing.Toolchain;
import org.cudaipc4j.testing.ToolchainTest;
import org.junit.jupiter.api.Test;

/**
 * The committed copy of cuda.h's tables, which the binding's checks read where no toolkit is installed, is what
 * this machine's toolkit header says today: run wherever the toolkit is (CI and the GPU machine), no GPU needed.
 */
@ToolchainTest(Toolchain.CUDA_H)
class CudaHeaderTablesToolkitTest {
    @Test
    void theCommittedTablesAreThoseOfTheToolkitsHeader() throws IOException {
        Path header = CudaToolkit.header("cuda.h").orElseThrow(
                () -> new AssertionError(CudaToolkit.headerMissing("cuda.h")));
        CudaHeaderTables toolkit = CudaHeaderTables.parse(Files.readString(header));
        assertEquals(toolkit.write(), CudaHeaderTables.committed().write(),
                "cudaipc4j-cuda/src/test/resources/org/cudaipc4j/cuda/" + CudaHeaderTables.RESOURCE + " differs from "
                        + header + ": make it again with org.cudaipc4j.cuda.CudaHeaderTables " + header + " <that file>"
                        + " and check the binding against the differences");
    }
}
