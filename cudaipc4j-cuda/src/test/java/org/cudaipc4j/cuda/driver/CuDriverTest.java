package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.cuda.CudaHeaderTables;
import org.junit.jupiter.api.Test;

class CuDriverTest {
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
    void everyRequiredFunctionIsDeclared() {
        List<String> missing = new ArrayList<>(REQUIRED);
        missing.removeIf(name -> CuDriver.named(name).isPresent());
        assertTrue(missing.isEmpty(), "not declared: " + missing);
    }

    @Test
    void everyConstantIsADeclarationNamedAfterItsFunction() throws IllegalAccessException {
        List<CuFunction> constants = new ArrayList<>();
        for (Field f : CuDriver.class.getDeclaredFields()) {
            if (Modifier.isPublic(f.getModifiers()) && CuFunction.class.isAssignableFrom(f.getType())) {
                CuFunction function = (CuFunction) f.get(null);
                constants.add(function);
                assertEquals(constantName(function.name()), f.getName(), "the constant of " + function);
                assertEquals(f.getType(), function.getClass(), function + ": declared type");
            }
        }
        assertEquals(constants, CuDriver.functions(), "every constant is declared, once, in order");
        assertEquals(Set.copyOf(constants).size(), constants.size());
    }

    /** cuMemAlloc_v2 is MEM_ALLOC, cuMemcpyHtoDAsync_v2 MEMCPY_HTOD_ASYNC, cuDeviceGetPCIBusId DEVICE_GET_PCI_BUS_ID. */
    private static String constantName(String function) {
        String s = function.substring(2).replaceFirst("_v2$", "");
        s = s.replaceAll("([A-Z]+)([A-Z][a-z])", "$1_$2").replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
        return s.replace("HTO_D", "HTOD").replace("DTO_H", "DTOH").replace("DTO_D", "DTOD");
    }

    @Test
    void everyCallHasTheJavaTypeOfItsDescriptor() {
        for (CuFunction function : CuDriver.functions()) {
            List<Method> calls = new ArrayList<>();
            for (Method m : function.getClass().getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && (m.getName().equals("call") || m.getName().equals("check"))) {
                    calls.add(m);
                    assertEquals(function.type().parameterList(), List.of(m.getParameterTypes()),
                            function + "." + m.getName() + ": Java signature differs from its descriptor");
                }
            }
            assertEquals(2, calls.size(), function + ": call and check");
            assertEquals(int.class, function.type().returnType(), function + " returns a CUresult");
        }
    }

    @Test
    void namesAreLookedUpExactly() {
        assertEquals(CuDriver.MEM_ALLOC, CuDriver.named("cuMemAlloc_v2").orElseThrow());
        assertTrue(CuDriver.named("cuMemAlloc").isEmpty(), "the unversioned export is another ABI");
    }

    @Test
    void ipcHandlesArePassedAs64ByteStructs() {
        assertEquals(64, CuSymbols.CU_IPC_MEM_HANDLE.byteSize());
        assertEquals(64, CuSymbols.CU_IPC_EVENT_HANDLE.byteSize());
        assertTrue(CuDriver.IPC_OPEN_MEM_HANDLE.descriptor().argumentLayouts().contains(CuSymbols.CU_IPC_MEM_HANDLE));
        assertTrue(CuDriver.IPC_OPEN_EVENT_HANDLE.descriptor().argumentLayouts()
                .contains(CuSymbols.CU_IPC_EVENT_HANDLE));
    }

    @Test
    void aFailedCheckNamesTheFunctionAndItsCode() {
        // Before the typed layer installs CudaException, the driver package reports failures on its own.
        RuntimeException e = CuDriver.MEM_ALLOC.failure(2);
        assertTrue(e.getMessage().startsWith("cuMemAlloc_v2 failed: "), e.getMessage());
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
        for (CuFunction function : CuDriver.functions()) {
            String name = function.name();
            String mapped = header.mapped(name);
            if (!exported.contains(name) || !mapped.equals(name)) {
                wrong.add(name + (mapped.equals(name) ? " (not declared)" : " (cuda.h maps it to " + mapped + ")"));
            }
        }
        assertTrue(wrong.isEmpty(), "names that are not cuda.h's mapping: " + wrong);
        assertEquals("cuEventElapsedTime_v2", header.mapped("cuEventElapsedTime"));
    }
}
