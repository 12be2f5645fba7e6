package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
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
    void enumCoversEveryCodeOfCudaHeader() {
        // From the committed copy of cuda.h's tables (CudaHeaderTablesToolkitTest keeps it true to the toolkit's).
        Map<String, Integer> results = CudaHeaderTables.committed().results();
        assertTrue(results.size() > 90, "only " + results.size() + " codes in " + CudaHeaderTables.RESOURCE);
        for (Map.Entry<String, Integer> r : results.entrySet()) {
            assertEquals(r.getKey(), CudaError.of(r.getValue()).cudaName(), "code " + r.getValue());
        }
    }
}
