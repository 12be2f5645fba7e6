package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.cudaipc4j.cuda.CudaHeaderTables;
import org.junit.jupiter.api.Test;

class CudaFunctionTest {
    /** The functions the binding must provide (under their cuda.h names). */
    private static final List<String> REQUIRED = List.of(
            "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName",
            "cuDeviceGetAttribute", "cuDeviceTotalMem_v2", "cuDeviceGetPCIBusId", "cuDeviceCanAccessPeer",
            "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxGetCurrent",
            "cuCtxEnablePeerAccess", "cuCtxSynchronize", "cuMemGetInfo_v2", "cuMemAlloc_v2", "cuMemFree_v2",
            "cuMemHostAlloc", "cuMemFreeHost", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2",
            "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2", "cuMemsetD8_v2",
            "cuMemsetD8Async", "cuStreamCreate", "cuStreamWaitEvent", "cuStreamSynchronize", "cuStreamQuery",
            "cuStreamDestroy_v2", "cuEventCreate", "cuEventRecord", "cuEventSynchronize", "cuEventQuery",
            "cuEventElapsedTime_v2", "cuEventDestroy_v2", "cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2",
            "cuIpcCloseMemHandle", "cuIpcGetEventHandle", "cuIpcOpenEventHandle", "cuModuleLoadData",
            "cuModuleGetFunction", "cuModuleUnload", "cuLaunchKernel", "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            "cuFuncGetAttribute", "cuGetErrorName", "cuGetErrorString");

    /** The classes that hold the calls, one per area. */
    private static final List<Class<?>> CALLS = List.of(DeviceCalls.class, MemoryCalls.class, VmmCalls.class,
            PoolCalls.class, StreamCalls.class, IpcCalls.class, ModuleCalls.class);

    @Test
    void everyRequiredFunctionIsDeclared() {
        List<String> missing = new ArrayList<>(REQUIRED);
        missing.removeIf(name -> CudaFunction.named(name).isPresent());
        assertTrue(missing.isEmpty(), "not declared: " + missing);
    }

    @Test
    void everyDeclarationHasARawCallNamedAfterItsExportAndACheckedOneNamedAfterItsApi() {
        Map<String, Class<?>> calls = new TreeMap<>();
        for (Class<?> c : CALLS) {
            for (Method m : c.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers())) {
                    assertTrue(Modifier.isStatic(m.getModifiers()), m + " is static");
                    assertNull(calls.put(m.getName(), c), "one call per name: " + m);
                }
            }
        }
        Map<String, Class<?>> expected = new TreeMap<>();
        for (CudaFunction function : CudaFunction.values()) {
            Class<?> area = calls.get(function.name());
            assertNotNull(area, function + " has no raw call");
            expected.put(function.name(), area);
            expected.put(checkedName(function.name()), area);
        }
        assertEquals(expected, calls, "every call is a declaration's, its checked one beside it");
        assertEquals(CudaFunction.values().length, Set.copyOf(List.of(CudaFunction.values())).size());
    }

    /** cuMemAlloc_v2 is memAlloc, cuMemcpyHtoDAsync_v2 memcpyHtoDAsync, cuDeviceGetPCIBusId deviceGetPCIBusId. */
    private static String checkedName(String function) {
        String s = function.substring(2).replaceFirst("_v2$", "");
        return Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    @Test
    void everyCallHasTheJavaTypeOfItsDescriptor() throws ReflectiveOperationException {
        for (CudaFunction function : CudaFunction.values()) {
            MethodType type = IpcHandleByValue.javaType(function.descriptor());
            assertEquals(int.class, type.returnType(), function + " returns a CUresult");
            Class<?> area = area(function);
            Class<?>[] parameters = type.parameterArray();
            Method raw = area.getMethod(function.name(), parameters);
            Method checked = area.getMethod(checkedName(function.name()), parameters);
            assertEquals(int.class, raw.getReturnType(), raw + " returns the CUresult");
            assertEquals(void.class, checked.getReturnType(), checked + " throws instead");
        }
    }

    private static Class<?> area(CudaFunction function) {
        for (Class<?> c : CALLS) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(function.name())) {
                    return c;
                }
            }
        }
        throw new AssertionError(function + " has no call");
    }

    @Test
    void everyCallLinksAHandleOfItsDeclaredType() {
        // the holder a call reads is the one Prelink initialises, linked from the call's own declaration
        for (CudaFunction function : CudaFunction.values()) {
            assertEquals(IpcHandleByValue.linked(function.descriptor()).toMethodType(),
                    Prelink.handle(function).type(), function + ": linked type");
            assertTrue(function.isLinked(), function + " linked");
        }
    }

    @Test
    void namesAreLookedUpExactly() {
        assertEquals(CudaFunction.cuMemAlloc_v2, CudaFunction.named("cuMemAlloc_v2").orElseThrow());
        assertTrue(CudaFunction.named("cuMemAlloc").isEmpty(), "the unversioned export is another ABI");
    }

    @Test
    void ipcHandlesArePassedAs64ByteStructs() {
        assertEquals(64, CuSymbols.CU_IPC_MEM_HANDLE.byteSize());
        assertEquals(64, CuSymbols.CU_IPC_EVENT_HANDLE.byteSize());
        assertTrue(CudaFunction.cuIpcOpenMemHandle_v2.descriptor().argumentLayouts()
                .contains(CuSymbols.CU_IPC_MEM_HANDLE));
        assertTrue(CudaFunction.cuIpcOpenEventHandle.descriptor().argumentLayouts()
                .contains(CuSymbols.CU_IPC_EVENT_HANDLE));
    }

    @Test
    void aFailedCheckNamesTheFunctionAndItsCode() {
        // Before the typed layer installs CudaException, the driver package reports failures on its own.
        RuntimeException e = CudaFunction.cuMemAlloc_v2.failure(2);
        assertTrue(e.getMessage().startsWith("cuMemAlloc_v2 failed: "), e.getMessage());
    }

    /**
     * Each name is what cuda.h maps its API to: a function cuda.h declares (directly or through a {@code #define}
     * such as {@code cuMemAlloc -> cuMemAlloc_v2}) that no {@code #define} renames further. Checked against the
     * committed copy of cuda.h's tables, which CudaHeaderTablesToolkitTest keeps true to the toolkit's header.
     */
    @Test
    void everyNameIsTheOneCudaHeaderMapsTo() {
        CudaHeaderTables header = CudaHeaderTables.committed();
        assertEquals("cuMemAlloc_v2", header.mapped("cuMemAlloc"), "the tables hold cuda.h's renaming defines");
        assertEquals("cuda.h", CudaFunction.HEADER);
        Set<String> exported = new HashSet<>();
        for (String function : header.functions()) {
            exported.add(header.mapped(function));
        }
        List<String> wrong = new ArrayList<>();
        for (CudaFunction function : CudaFunction.values()) {
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
