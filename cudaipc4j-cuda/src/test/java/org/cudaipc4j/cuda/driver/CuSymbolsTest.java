package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.cudaipc4j.cuda.CudaHeaderTables;
import org.junit.jupiter.api.Test;

class CuSymbolsTest {
    /** The functions the binding must provide (under their cuda.h names). */
    private static final List<String> REQUIRED = List.of(
            "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName",
            "cuDeviceGetAttribute", "cuDeviceTotalMem_v2", "cuDeviceGetPCIBusId", "cuDeviceCanAccessPeer",
            "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxGetCurrent",
            "cuCtxEnablePeerAccess", "cuCtxSynchronize", "cuMemGetInfo_v2", "cuMemAlloc_v2", "cuMemFree_v2",
            "cuMemHostAlloc", "cuMemFreeHost", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2",
            "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2", "cuMemsetD8_v2",
            "cuMemsetD8Async", "cuStreamCreate", "cuStreamWaitEvent", "cuStreamSynchronize", "cuStreamQuery", "cuStreamDestroy_v2",
            "cuEventCreate", "cuEventRecord", "cuEventSynchronize", "cuEventQuery", "cuEventElapsedTime_v2",
            "cuEventDestroy_v2", "cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2", "cuIpcCloseMemHandle",
            "cuIpcGetEventHandle", "cuIpcOpenEventHandle", "cuModuleLoadData", "cuModuleGetFunction",
            "cuModuleUnload", "cuLaunchKernel", "cuOccupancyMaxActiveBlocksPerMultiprocessor", "cuFuncGetAttribute",
            "cuGetErrorName", "cuGetErrorString");

    @Test
    void tableHasEveryRequiredFunction() {
        List<String> missing = new ArrayList<>(REQUIRED);
        missing.removeAll(CuSymbols.TABLE.keySet());
        assertTrue(missing.isEmpty(), "missing from the symbol table: " + missing);
    }

    @Test
    void everyRawCallHasATableEntryOfTheSameType() {
        Set<String> methods = new TreeSet<>();
        for (Method m : CuDriver.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || !Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            methods.add(m.getName());
            var descriptor = CuSymbols.TABLE.get(m.getName());
            assertTrue(descriptor != null, m.getName() + " has no symbol table entry");
            assertEquals(descriptor.toMethodType(), MethodType.methodType(int.class, m.getParameterTypes()),
                    m.getName() + ": Java signature differs from its descriptor");
        }
        assertEquals(new TreeSet<>(CuSymbols.TABLE.keySet()), methods, "table entries without a raw call");
    }

    @Test
    void ipcHandlesArePassedAs64ByteStructs() {
        assertEquals(64, CuSymbols.CU_IPC_MEM_HANDLE.byteSize());
        assertEquals(64, CuSymbols.CU_IPC_EVENT_HANDLE.byteSize());
        assertTrue(CuSymbols.TABLE.get("cuIpcOpenMemHandle_v2").argumentLayouts().contains(CuSymbols.CU_IPC_MEM_HANDLE));
        assertTrue(CuSymbols.TABLE.get("cuIpcOpenEventHandle").argumentLayouts()
                .contains(CuSymbols.CU_IPC_EVENT_HANDLE));
    }

    /**
     * Each name is what cuda.h maps its API to: a function cuda.h declares (directly or through a {@code #define}
     * such as {@code cuMemAlloc -> cuMemAlloc_v2}) that no {@code #define} renames further. Checked against the
     * committed copy of cuda.h's tables, which CudaHeaderTablesGpuTest keeps true to the toolkit's header.
     */
    @Test
    void everyNameIsTheOneCudaHeaderMapsTo() {
        CudaHeaderTables header = CudaHeaderTables.committed();
        assertEquals("cuMemAlloc_v2", header.mapped("cuMemAlloc"), "the tables hold cuda.h's renaming defines");
        Set<String> exported = new HashSet<>();
        for (String function : header.functions()) {
            exported.add(header.mapped(function));
        }
        List<String> wrong = new ArrayList<>();
        for (String name : CuSymbols.TABLE.keySet()) {
            String mapped = header.mapped(name);
            if (!exported.contains(name) || !mapped.equals(name)) {
                wrong.add(name + (mapped.equals(name) ? " (not declared)" : " (cuda.h maps it to " + mapped + ")"));
            }
        }
        assertTrue(wrong.isEmpty(), "names that are not cuda.h's mapping: " + wrong);
        assertEquals("cuEventElapsedTime_v2", header.mapped("cuEventElapsedTime"));
    }
}
