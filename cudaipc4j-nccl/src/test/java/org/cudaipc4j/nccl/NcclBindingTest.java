package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.cudaipc4j.nccl.binding.NcclCalls;
import org.cudaipc4j.nccl.binding.NcclFunction;
import org.cudaipc4j.nccl.binding.NcclLayouts;
import org.cudaipc4j.nccl.binding.NcclLibrary;
import org.junit.jupiter.api.Test;

/** The binding's tables and layouts, without NCCL: what {@code nccl.h} 2.28 says, written out independently. */
class NcclBindingTest {
    @Test
    void configHasTheOffsetsOfNcclHeader228() {
        Map<String, Long> expected = new LinkedHashMap<>();
        String[] names = {"size", "magic", "version", "blocking", "cgaClusterSize", "minCTAs", "maxCTAs", "netName",
            "splitShare", "trafficClass", "commName", "collnetEnable", "CTAPolicy", "shrinkShare", "nvlsCTAs",
            "nChannelsPerNetPeer", "nvlinkCentricSched"};
        long[] offsets = {0, 8, 12, 16, 20, 24, 28, 32, 40, 44, 48, 56, 60, 64, 68, 72, 76};
        for (int i = 0; i < names.length; i++) {
            expected.put(names[i], offsets[i]);
        }
        Map<String, Long> ours = new LinkedHashMap<>();
        for (String name : names) {
            ours.put(name, NcclLayouts.configOffset(name));
        }
        assertEquals(expected, ours);
        assertEquals(80, NcclLayouts.CONFIG.byteSize());
    }

    @Test
    void newConfigIsWhatTheInitializerMakes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment config = NcclLayouts.newConfig(arena);
            assertEquals(80L, config.get(JAVA_LONG, 0));
            assertEquals(0xcafebeef, config.get(JAVA_INT, 8));
            assertEquals(22800, config.get(JAVA_INT, 12));
            for (long offset : new long[] {16, 20, 24, 28, 40, 44, 56, 60, 64, 68, 72, 76}) {
                assertEquals(Integer.MIN_VALUE, config.get(JAVA_INT, offset), "int at " + offset);
            }
            assertEquals(0L, config.get(ADDRESS, 32).address());
            assertEquals(0L, config.get(ADDRESS, 48).address());
        }
    }

    @Test
    void uniqueIdIs128BytesPassedByValue() {
        assertEquals(128, NcclLayouts.UNIQUE_ID.byteSize());
        assertTrue(NcclFunction.ncclCommInitRankConfig.descriptor().argumentLayouts().contains(NcclLayouts.UNIQUE_ID));
    }

    @Test
    void onlyTheStringFunctionsDoNotReturnAResult() {
        for (NcclFunction f : NcclFunction.values()) {
            boolean string = f == NcclFunction.ncclGetErrorString || f == NcclFunction.ncclGetLastError;
            assertEquals(!string, f.returnsResult(), f.name());
        }
    }

    @Test
    void everyDeclarationHasOneCallOfItsExactType() throws NoSuchMethodException {
        // invokeExact needs the call's Java type to be the linked handle's, which is the declaration's
        Map<String, MethodType> calls = new TreeMap<>();
        for (Method m : NcclCalls.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())) {
                assertNull(calls.put(m.getName(), MethodType.methodType(m.getReturnType(), m.getParameterTypes())),
                        "one call per function: " + m.getName());
            }
        }
        Method version = NcclLibrary.class.getMethod("ncclGetVersion", MemorySegment.class);
        calls.put(version.getName(), MethodType.methodType(version.getReturnType(), version.getParameterTypes()));
        Map<String, MethodType> declared = new TreeMap<>();
        for (NcclFunction f : NcclFunction.values()) {
            declared.put(f.name(), f.descriptor().toMethodType());
        }
        assertEquals(declared, calls);
    }

    @Test
    void collectivesTakeTheirArgumentsInHeaderOrder() {
        // (send, recv, count, type, op, comm, stream)
        assertEquals(java.util.List.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
                NcclFunction.ncclAllReduce.descriptor().argumentLayouts());
        // (buff, count, type, peer, comm, stream)
        assertEquals(java.util.List.of(ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
                NcclFunction.ncclSend.descriptor().argumentLayouts());
        assertEquals(java.util.List.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS),
                NcclFunction.ncclAllGather.descriptor().argumentLayouts());
    }

    @Test
    void resultsKeepUnknownCodes() {
        assertEquals("ncclInProgress", NcclResult.nameOf(7));
        assertEquals("ncclResult(8)", NcclResult.nameOf(8));
        assertNull(NcclResult.of(8));
        NcclCallException e = new NcclCallException("ncclAllReduce", 8, "timeout");
        assertEquals(8, e.code());
        assertNull(e.result());
        assertEquals("ncclAllReduce failed: ncclResult(8): timeout", e.getMessage());
        assertEquals(NcclResult.REMOTE_ERROR, new NcclCallException("ncclSend", 6, "").result());
    }

    @Test
    void versionsDecodeAndCompare() {
        NcclVersion v = new NcclVersion(22809);
        assertEquals("2.28.9", v.toString());
        assertEquals(2, v.major());
        assertEquals(28, v.minor());
        assertEquals(9, v.patch());
        assertEquals(v, NcclVersion.of(2, 28, 9));
        assertTrue(new NcclVersion(22803).compareTo(v) < 0);
        assertTrue(NcclVersion.MINIMUM.compareTo(new NcclVersion(21803)) > 0);
        assertThrows(IllegalArgumentException.class, () -> new NcclVersion(2708));
        assertThrows(IllegalArgumentException.class, () -> NcclVersion.of(2, 100, 0));
    }

    @Test
    void uniqueIdsRoundTripThroughHexAndRefuseOtherLengths() {
        byte[] bytes = new byte[128];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 37);
        }
        UniqueId id = UniqueId.of(bytes);
        assertArrayEquals(bytes, UniqueId.ofHex(id.hex()).bytes());
        assertEquals(id, UniqueId.ofHex(id.hex()));
        bytes[0] = 1;
        assertFalse(Arrays.equals(bytes, id.bytes()), "the id keeps its own copy");
        assertEquals("an NCCL unique id is 128 bytes, got 127",
                assertThrows(IllegalArgumentException.class, () -> UniqueId.of(new byte[127])).getMessage());
        assertThrows(IllegalArgumentException.class, () -> UniqueId.ofHex("00"));
        assertEquals("ncclUniqueId", id.toString(), "an id is a credential and is not printed");
    }

    @Test
    void aLibraryThatIsNotThereIsUnavailableWithTheFileAndTheVariable() {
        NcclUnavailableException e = assertThrows(NcclUnavailableException.class,
                () -> Nccl.load("/nonexistent/libnccl.so.2"));
        assertTrue(e.getMessage().startsWith("cannot load NCCL from /nonexistent/libnccl.so.2"), e.getMessage());
        assertTrue(e.getMessage().endsWith("name its libnccl.so.2 in CUDAIPC4J_NCCL_LIBRARY"), e.getMessage());
    }

    @Test
    void aLibraryThatIsNotNcclIsRefused() {
        NcclUnavailableException e = assertThrows(NcclUnavailableException.class, () -> Nccl.load("libc.so.6"));
        assertEquals("libc.so.6 has no ncclGetVersion: not an NCCL library", e.getMessage());
    }

    @Test
    void dataTypesAndOpsHaveNcclHeaderCodes() {
        assertEquals(7, DataType.FLOAT32.code());
        assertEquals(9, DataType.BFLOAT16.code());
        assertEquals(11, DataType.FLOAT8_E5M2.code());
        assertEquals(2, DataType.BFLOAT16.bytes());
        assertEquals(4, ReduceOp.AVG.code());
        for (DataType t : DataType.values()) {
            assertEquals(t.ordinal(), t.code(), "ncclDataType_t is dense from 0");
        }
    }
}
