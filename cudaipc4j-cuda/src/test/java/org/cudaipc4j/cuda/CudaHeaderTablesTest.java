package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The reading of cuda.h that the committed tables come from, on a header of a few lines. */
class CudaHeaderTablesTest {
    private static final String HEADER = """
            #define CUDA_VERSION 13000
            #define cuMemAlloc cuMemAlloc_v2
            #define cuStreamWaitEvent __CUDA_API_PTSZ(cuStreamWaitEvent)
            #define cuMemcpyHtoDAsync __CUDA_API_PTSZ(cuMemcpyHtoDAsync_v2)
            typedef enum cudaError_enum {
                CUDA_SUCCESS = 0,
                /** a comment = 5 */
                CUDA_ERROR_INVALID_VALUE  = 1,
                CUDA_ERROR_UNKNOWN = 999
            } CUresult;
            CUresult CUDAAPI cuInit(unsigned int Flags);
            CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
            """;

    @Test
    void readsCodesFunctionsAndRenamingDefines() {
        CudaHeaderTables t = CudaHeaderTables.parse(HEADER);
        assertEquals(13000, t.version());
        assertEquals(Map.of("CUDA_SUCCESS", 0, "CUDA_ERROR_INVALID_VALUE", 1, "CUDA_ERROR_UNKNOWN", 999), t.results());
        assertEquals(Set.of("cuInit", "cuMemAlloc"), t.functions());
        assertEquals(Map.of("cuMemAlloc", "cuMemAlloc_v2", "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2"), t.defines());
        assertEquals("cuMemAlloc_v2", t.mapped("cuMemAlloc"));
        assertEquals("cuInit", t.mapped("cuInit"));
    }

    @Test
    void theWrittenTextReadsBackAsTheSameTables() {
        CudaHeaderTables t = CudaHeaderTables.parse(HEADER);
        assertEquals(t, CudaHeaderTables.read(t.write()));
        CudaHeaderTables committed = CudaHeaderTables.committed();
        assertEquals(committed, CudaHeaderTables.read(committed.write()));
    }

    @Test
    void otherTextIsRefused() {
        assertEquals("no #define CUDA_VERSION: not cuda.h",
                assertThrows(IllegalArgumentException.class, () -> CudaHeaderTables.parse("int x;")).getMessage());
        assertEquals("unknown line in cuda-h-tables.txt: macro X",
                assertThrows(IllegalArgumentException.class, () -> CudaHeaderTables.read("macro X")).getMessage());
    }
}
