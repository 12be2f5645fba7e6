package org.cudaipc4j.cuda.ipc;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.driver.CudaFunction;

/**
 * Which ways of sharing memory work on a device, and for each that does not, why: the device's attributes for each
 * path, and for the fabric paths a trial export of VMM memory (fabric handles also need the IMEX service, which no
 * attribute shows). An immutable value.
 *
 * @param device      the device probed
 * @param unsupported each path that does not work, with the reason
 */
public record IpcCapabilities(Device device, Map<IpcPath, String> unsupported) {
    /** {@code CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED}. */
    static final int ATTRIBUTE_VMM = 102;
    private static final int ATTRIBUTE_POSIX_FD = 103;
    private static final int ATTRIBUTE_MEMORY_POOLS = 115;
    private static final int ATTRIBUTE_POOL_HANDLE_TYPES = 119;
    private static final int ATTRIBUTE_FABRIC = 128;

    /** Copies {@code unsupported}, so that the value stays immutable. */
    public IpcCapabilities {
        EnumMap<IpcPath, String> copy = new EnumMap<>(IpcPath.class);
        copy.putAll(unsupported);
        unsupported = Collections.unmodifiableMap(copy);
    }

    /**
     * {@return true when {@code path} works on the device}
     *
     * @param path a way of sharing memory
     */
    public boolean supports(IpcPath path) {
        return !unsupported.containsKey(path);
    }

    /**
     * {@return why {@code path} does not work, empty when it does}
     *
     * @param path a way of sharing memory
     */
    public Optional<String> whyNot(IpcPath path) {
        return Optional.ofNullable(unsupported.get(path));
    }

    /**
     * Probes {@code device}. With {@code tryFabric}, the fabric paths that the attributes allow are tried (an
     * allocation of one granule exported, in a primary context retained for the probe); without it they count as
     * supported when the attributes say so.
     *
     * @param device the device to probe
     * @param tryFabric whether to try a fabric export
     * @return what works on the device
     */
    public static IpcCapabilities probe(Device device, boolean tryFabric) {
        Map<IpcPath, String> no = new EnumMap<>(IpcPath.class);
        device.ipcUnsupportedReason().ifPresent(r -> no.put(IpcPath.LEGACY, r));
        boolean vmm = attribute(device, ATTRIBUTE_VMM) > 0;
        if (!vmm) {
            String noVmm = "no virtual memory management (" + CudaFunction.cuMemCreate.name() + ")";
            no.put(IpcPath.VMM_FD, noVmm);
            no.put(IpcPath.VMM_FABRIC, noVmm);
        } else if (attribute(device, ATTRIBUTE_POSIX_FD) <= 0) {
            no.put(IpcPath.VMM_FD, "cannot export POSIX file descriptors");
        }
        boolean pools = attribute(device, ATTRIBUTE_MEMORY_POOLS) > 0;
        int poolTypes = pools ? attribute(device, ATTRIBUTE_POOL_HANDLE_TYPES) : 0;
        if (!pools) {
            no.put(IpcPath.POOL_FD, "no memory pools");
            no.put(IpcPath.POOL_FABRIC, "no memory pools");
        } else {
            if ((poolTypes & ShareableHandleType.POSIX_FILE_DESCRIPTOR.code()) == 0) {
                no.put(IpcPath.POOL_FD, "memory pools cannot be exported as POSIX file descriptors (handle types "
                        + poolTypes + ")");
            }
            if ((poolTypes & ShareableHandleType.FABRIC.code()) == 0) {
                no.put(IpcPath.POOL_FABRIC, "memory pools cannot be exported as fabric handles (handle types "
                        + poolTypes + ")");
            }
        }
        if (attribute(device, ATTRIBUTE_FABRIC) <= 0) {
            no.putIfAbsent(IpcPath.VMM_FABRIC, "no fabric handles on this device or driver");
            no.putIfAbsent(IpcPath.POOL_FABRIC, "no fabric handles on this device or driver");
        }
        if (tryFabric && (!no.containsKey(IpcPath.VMM_FABRIC) || !no.containsKey(IpcPath.POOL_FABRIC))) {
            tryFabric(device, no);
        }
        return new IpcCapabilities(device, no);
    }

    /**
     * Exports a granule of VMM memory as a fabric handle; a refusal becomes the reason for both fabric paths, which
     * need the same IMEX service. (A pool is not created with the fabric type for the trial: on a machine without
     * IMEX, destroying such a pool crashed the driver.)
     */
    private static void tryFabric(Device device, Map<IpcPath, String> no) {
        try (Context context = Context.retainPrimary(device);
             VmmAllocation a = VmmAllocation.create(context, 1, Set.of(ShareableHandleType.FABRIC))) {
            a.exportFabricHandle();
        } catch (CudaException e) {
            no.putIfAbsent(IpcPath.VMM_FABRIC, e.getMessage());
            no.putIfAbsent(IpcPath.POOL_FABRIC, e.getMessage());
        }
    }

    /** The attribute's value; 0 where the driver does not know it (an older driver than the attribute). */
    private static int attribute(Device device, int attribute) {
        try {
            return device.attribute(attribute);
        } catch (CudaException unknown) {
            return 0;
        }
    }
}
