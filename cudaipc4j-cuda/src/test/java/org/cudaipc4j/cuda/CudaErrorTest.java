package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class CudaErrorTest {
    @Test
    void knownCodesMapToTheirConstants() {
        assertEquals(CudaError.SUCCESS, CudaError.of(0));
        assertEquals(CudaError.INVALID_CONTEXT, CudaError.of(201));
        assertEquals(CudaError.NOT_READY, CudaError.of(600));
        assertEquals(CudaError.PEER_ACCESS_ALREADY_ENABLED, CudaError.of(704));
        assertEquals(CudaError.UNKNOWN, CudaError.of(999));
        assertEquals("CUDA_ERROR_INVALID_CONTEXT", CudaError.INVALID_CONTEXT.cudaName());
        assertEquals("CUDA_SUCCESS", CudaError.SUCCESS.cudaName());
        assertEquals("invalid context", CudaError.INVALID_CONTEXT.fallbackDescription());
    }

    @Test
    void unknownCodesAreTolerated() {
        assertEquals(CudaError.UNRECOGNIZED, CudaError.of(123456));
        assertEquals(CudaError.UNRECOGNIZED, CudaError.of(-7));
        CudaException e = CudaException.of("cuSomething", 123456);
        assertEquals(123456, e.code());
        assertEquals(CudaError.UNRECOGNIZED, e.error());
        assertEquals("cuSomething failed: CUresult 123456 (unrecognised error code)", e.getMessage());
    }

    @Test
    void messageNamesCallErrorAndDescription() {
        CudaException e = new CudaException("cuIpcOpenMemHandle_v2", 201, "CUDA_ERROR_INVALID_CONTEXT",
                "invalid device context");
        assertEquals("cuIpcOpenMemHandle_v2 failed: CUDA_ERROR_INVALID_CONTEXT (invalid device context)",
                e.getMessage());
        assertEquals("cuIpcOpenMemHandle_v2", e.call());
        assertEquals(CudaError.INVALID_CONTEXT, e.error());
    }

    @Test
    void knownCodeGetsItsNameWithOrWithoutADriver() {
        CudaException e = CudaException.of("cuMemAlloc_v2", 2);
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        assertTrue(e.getMessage().startsWith("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY ("), e.getMessage());
        assertEquals(CudaError.OUT_OF_MEMORY, e.error());
    }

    @Test
    void enumCoversEveryCodeOfCudaHeader() throws IOException {
        Path header = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "include", "cuda.h");
        Assumptions.assumeTrue(Files.isRegularFile(header), "skipped: no " + header + " here");
        String text = Files.readString(header);
        String block = text.substring(text.indexOf("typedef enum cudaError_enum"), text.indexOf("} CUresult;"));
        Matcher m = Pattern.compile("(?m)^\\s*(CUDA_[A-Z0-9_]+)\\s*=\\s*(\\d+)").matcher(block);
        int seen = 0;
        while (m.find()) {
            CudaError e = CudaError.of(Integer.parseInt(m.group(2)));
            assertEquals(m.group(1), e.cudaName(), "code " + m.group(2));
            seen++;
        }
        assertTrue(seen > 90, "parsed only " + seen + " codes");
    }
}
