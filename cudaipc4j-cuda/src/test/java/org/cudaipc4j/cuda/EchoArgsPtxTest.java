package org.cudaipc4j.cuda;

import java.io.IOException;
import java.nio.file.Path;
import org.cudaipc4j.testing.ShippedPtx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test kernel's PTX is what scripts/build-ptx.sh makes from echo_args.cu today. */
class EchoArgsPtxTest {
    @Test
    void testPtxMatchesItsSource(@TempDir Path tmp) throws IOException {
        ShippedPtx.assertFresh("cudaipc4j-cuda/src/test/cuda/echo_args.cu",
                "cudaipc4j-cuda/src/test/resources/org/cudaipc4j/cuda/echo_args.ptx", tmp);
    }
}
