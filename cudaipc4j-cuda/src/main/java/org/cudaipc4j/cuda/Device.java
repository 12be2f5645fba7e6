package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.DeviceCalls;

/**
 * A CUDA device. A plain, immutable value: it owns no native resource. Every factory initialises the driver
 * ({@link Cuda#init()}). Thread-safe.
 *
 * <p>An ordinal names a device only within one process: {@code CUDA_VISIBLE_DEVICES} can give another process a
 * different numbering. Between processes, name a device by its {@link #uuid()} ({@link #byUuid}).
 */
public final class Device {
    /** {@code CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT}. */
    public static final int ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
    /** {@code CU_DEVICE_ATTRIBUTE_COMPUTE_MODE}. */
    public static final int ATTRIBUTE_COMPUTE_MODE = 20;
    /** {@code CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING}. */
    public static final int ATTRIBUTE_UNIFIED_ADDRESSING = 41;
    /** {@code CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR}. */
    public static final int ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
    /** {@code CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR}. */
    public static final int ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

    /** Room for a device's name with its terminating NUL. */
    private static final int NAME_BYTES = 256;
    /** Room for a PCI bus id ({@code domain:bus:device.function}) with its NUL. */
    private static final int PCI_BUS_ID_BYTES = 64;

    private final int ordinal;
    private final int handle;

    private Device(int ordinal, int handle) {
        this.ordinal = ordinal;
        this.handle = handle;
    }

    /** {@return the number of CUDA devices visible to this process} */
    public static int count() {
        Cuda.init();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            DeviceCalls.deviceGetCount(out);
            return out.get(JAVA_INT, 0);
        }
    }

    /**
     * The device with {@code ordinal}.
     *
     * @param ordinal the device's ordinal in this process
     * @return the device
     * @throws IllegalArgumentException when there is no such device
     */
    public static Device get(int ordinal) {
        int count = count();
        if (ordinal < 0 || ordinal >= count) {
            throw new IllegalArgumentException("no CUDA device " + ordinal + " (" + count + " present)");
        }
        return handleOf(ordinal);
    }

    /** The device with {@code ordinal}, known to be in range ({@code cuDeviceGet}). */
    private static Device handleOf(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            DeviceCalls.deviceGet(out, ordinal);
            return new Device(ordinal, out.get(JAVA_INT, 0));
        }
    }

    /**
     * The visible device with {@code uuid} ({@code cuDeviceGetUuid_v2}), whatever its ordinal in this process.
     *
     * @param uuid the device's UUID
     * @return the device
     * @throws IllegalArgumentException when no visible device has it (the message lists those that are visible)
     */
    public static Device byUuid(UUID uuid) {
        StringBuilder visible = new StringBuilder();
        for (Device d : all()) {
            UUID u = d.uuid();
            if (u.equals(uuid)) {
                return d;
            }
            visible.append(visible.isEmpty() ? "" : ", ").append(d.ordinal).append(": GPU-").append(u);
        }
        throw new IllegalArgumentException("no visible CUDA device has UUID GPU-" + uuid + " (visible: "
                + (visible.isEmpty() ? "none" : visible) + "; is CUDA_VISIBLE_DEVICES different here?)");
    }

    /** {@return every device, in ordinal order} */
    public static List<Device> all() {
        int count = count();
        List<Device> devices = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            devices.add(handleOf(i));
        }
        return List.copyOf(devices);
    }

    /** {@return the device's ordinal in this process} */
    public int ordinal() {
        return ordinal;
    }

    /** {@return the driver's {@code CUdevice} value} */
    public int handle() {
        return handle;
    }

    /** {@return the device's name, e.g. {@code NVIDIA H200}} */
    public String name() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(NAME_BYTES);
            DeviceCalls.deviceGetName(out, NAME_BYTES, handle);
            return out.getString(0);
        }
    }

    /** {@return the PCI bus id, e.g. {@code 0000:19:00.0}} */
    public String pciBusId() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(PCI_BUS_ID_BYTES);
            DeviceCalls.deviceGetPCIBusId(out, PCI_BUS_ID_BYTES, handle);
            return out.getString(0);
        }
    }

    /**
     * {@return the device's UUID ({@code cuDeviceGetUuid_v2}), the same in every process on the machine; {@code
     * nvidia-smi} prints it as {@code GPU-} followed by {@link UUID#toString()}}
     */
    public UUID uuid() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(CuSymbols.CU_UUID);
            DeviceCalls.deviceGetUuid(out, handle);
            return new UUID(Long.reverseBytes(out.get(JAVA_LONG_UNALIGNED, 0)),
                    Long.reverseBytes(out.get(JAVA_LONG_UNALIGNED, 8)));
        }
    }

    /** {@return total device memory in bytes} */
    public long totalMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            DeviceCalls.deviceTotalMem(out, handle);
            return out.get(JAVA_LONG, 0);
        }
    }

    /**
     * {@return a {@code CU_DEVICE_ATTRIBUTE_*} value of this device}
     *
     * @param attribute the attribute's {@code CUdevice_attribute} value
     */
    public int attribute(int attribute) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            DeviceCalls.deviceGetAttribute(out, attribute, handle);
            return out.get(JAVA_INT, 0);
        }
    }

    /** {@return the number of multiprocessors} */
    public int multiprocessorCount() {
        return attribute(ATTRIBUTE_MULTIPROCESSOR_COUNT);
    }

    /** {@return the compute capability} */
    public ComputeCapability computeCapability() {
        return new ComputeCapability(attribute(ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attribute(ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
    }

    /** {@return true when the device shares one virtual address space with the host (IPC needs it)} */
    public boolean unifiedAddressing() {
        return attribute(ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
    }

    /** {@return the compute mode} */
    public ComputeMode computeMode() {
        return ComputeMode.of(attribute(ATTRIBUTE_COMPUTE_MODE));
    }

    /**
     * {@return why this device cannot take part in CUDA IPC on its own (simpleIPC's per-device rules: unified
     * addressing, compute mode Default), or empty when it can} Peer access between devices is a separate, pairwise
     * check.
     */
    public Optional<String> ipcUnsupportedReason() {
        if (!unifiedAddressing()) {
            return Optional.of("no unified addressing");
        }
        ComputeMode mode = computeMode();
        if (mode != ComputeMode.DEFAULT) {
            return Optional.of("compute mode " + mode.displayName() + ", not Default");
        }
        return Optional.empty();
    }

    /**
     * {@return true while this device's primary context is active in this process: some reference to it is still
     * retained ({@code cuDevicePrimaryCtxGetState})}
     */
    public boolean primaryContextActive() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment flags = arena.allocate(JAVA_INT);
            MemorySegment active = arena.allocate(JAVA_INT);
            DeviceCalls.devicePrimaryCtxGetState(handle, flags, active);
            return active.get(JAVA_INT, 0) != 0;
        }
    }

    /**
     * {@return true when this device can access {@code peer}'s memory directly; false for itself}
     *
     * @param peer the other device
     */
    public boolean canAccessPeer(Device peer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            DeviceCalls.deviceCanAccessPeer(out, handle, peer.handle);
            return out.get(JAVA_INT, 0) != 0;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Device d && d.ordinal == ordinal;
    }

    @Override
    public int hashCode() {
        return ordinal;
    }

    @Override
    public String toString() {
        return "device " + ordinal;
    }
}
