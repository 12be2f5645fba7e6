package org.cudaipc4j.nccl.binding;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The structures of {@code nccl.h} the binding passes: {@code ncclUniqueId} and {@code ncclConfig_t}.
 *
 * <p>{@code ncclConfig_t} is the layout NCCL 2.28 declares (tag {@code ncclConfig_v22800}, 80 bytes). NCCL copies
 * {@code min(config->size, its own size)} bytes and resets the fields newer than {@code config->version}, so this
 * layout also works with the later 2.x releases that append fields, and with earlier ones down to the supported
 * minimum, which ignore the fields they do not know.
 */
public final class NcclLayouts {
    private NcclLayouts() {}

    /** {@code NCCL_UNIQUE_ID_BYTES}. */
    public static final int UNIQUE_ID_BYTES = 128;

    /** {@code ncclUniqueId}: {@code struct { char internal[128]; }}, passed by value. */
    public static final StructLayout UNIQUE_ID = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(UNIQUE_ID_BYTES, JAVA_BYTE).withName("internal")).withName("ncclUniqueId");

    /** {@code NCCL_CONFIG_UNDEF_INT}: an int field NCCL is to choose. */
    public static final int UNDEFINED_INT = Integer.MIN_VALUE;

    /** {@code ncclConfig_t}'s {@code magic}. */
    public static final int CONFIG_MAGIC = 0xcafebeef;

    /** The {@code version} this layout declares: {@code NCCL_VERSION(2, 28, 0)}. */
    public static final int CONFIG_VERSION = 22800;

    /** {@code ncclConfig_t} as NCCL 2.28 declares it, field by field. */
    public static final StructLayout CONFIG = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            JAVA_INT.withName("magic"),
            JAVA_INT.withName("version"),
            JAVA_INT.withName("blocking"),
            JAVA_INT.withName("cgaClusterSize"),
            JAVA_INT.withName("minCTAs"),
            JAVA_INT.withName("maxCTAs"),
            ADDRESS.withName("netName"),
            JAVA_INT.withName("splitShare"),
            JAVA_INT.withName("trafficClass"),
            ADDRESS.withName("commName"),
            JAVA_INT.withName("collnetEnable"),
            JAVA_INT.withName("CTAPolicy"),
            JAVA_INT.withName("shrinkShare"),
            JAVA_INT.withName("nvlsCTAs"),
            JAVA_INT.withName("nChannelsPerNetPeer"),
            JAVA_INT.withName("nvlinkCentricSched")).withName("ncclConfig_t");

    /** The int fields that {@code NCCL_CONFIG_INITIALIZER} sets to {@link #UNDEFINED_INT}. */
    public static final List<String> CONFIG_INT_FIELDS = List.of("blocking", "cgaClusterSize", "minCTAs", "maxCTAs",
            "splitShare", "trafficClass", "collnetEnable", "CTAPolicy", "shrinkShare", "nvlsCTAs",
            "nChannelsPerNetPeer", "nvlinkCentricSched");

    /** The pointer fields, which the initializer sets to NULL. */
    public static final List<String> CONFIG_POINTER_FIELDS = List.of("netName", "commName");

    /**
     * {@return the byte offset of {@code field} in {@link #CONFIG}}
     *
     * @param field the field's name in {@code nccl.h}
     */
    public static long configOffset(String field) {
        return CONFIG.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    /**
     * {@return a new config in {@code arena} as {@code NCCL_CONFIG_INITIALIZER} makes it}
     *
     * @param arena the arena the config lives in
     */
    public static MemorySegment newConfig(Arena arena) {
        MemorySegment config = arena.allocate(CONFIG);
        config.set(JAVA_LONG, configOffset("size"), CONFIG.byteSize());
        config.set(JAVA_INT, configOffset("magic"), CONFIG_MAGIC);
        config.set(JAVA_INT, configOffset("version"), CONFIG_VERSION);
        for (String field : CONFIG_INT_FIELDS) {
            setInt(config, field, UNDEFINED_INT);
        }
        for (String field : CONFIG_POINTER_FIELDS) {
            config.set(ADDRESS, configOffset(field), MemorySegment.NULL);
        }
        return config;
    }

    /**
     * Sets the int field {@code field} of a config.
     *
     * @param config a config from {@link #newConfig}
     * @param field the field's name in {@code nccl.h}
     * @param value the new value
     */
    public static void setInt(MemorySegment config, String field, int value) {
        config.set(JAVA_INT, configOffset(field), value);
    }

    /**
     * Sets the pointer field {@code field} of a config.
     *
     * @param config a config from {@link #newConfig}
     * @param field the field's name in {@code nccl.h}
     * @param value the new value
     */
    public static void setPointer(MemorySegment config, String field, MemorySegment value) {
        config.set(ADDRESS, configOffset(field), value);
    }
}
