package org.cudaipc4j.interop;

import java.util.List;
import java.util.UUID;

/**
 * The GPUs visible to this process. {@link #cuda()} asks the CUDA driver; tests give a table of their own.
 * Descriptors name a device by UUID, never by ordinal: {@link #resolve} finds it here.
 */
@FunctionalInterface
public interface DeviceTable {
    /** {@return the visible devices, in ordinal order} */
    List<VisibleDevice> visible();

    /**
     * {@return the visible device with {@code uuid}}
     *
     * @param uuid the device's UUID
     * @throws IllegalArgumentException naming the UUID and listing what is visible
     */
    default VisibleDevice resolve(UUID uuid) {
        List<VisibleDevice> all = visible();
        for (VisibleDevice d : all) {
            if (d.uuid().equals(uuid)) {
                return d;
            }
        }
        StringBuilder seen = new StringBuilder();
        for (VisibleDevice d : all) {
            seen.append(seen.isEmpty() ? "" : ", ").append(d.ordinal()).append(": ")
                    .append(DescriptorJson.uuidString(d.uuid())).append(d.name() == null ? "" : " (" + d.name() + ")");
        }
        throw new IllegalArgumentException("no visible GPU has UUID " + DescriptorJson.uuidString(uuid)
                + " (visible: " + (seen.isEmpty() ? "none" : seen) + "; is CUDA_VISIBLE_DEVICES different here?)");
    }

    /** {@return the devices the CUDA driver shows this process ({@code org.cudaipc4j.cuda.Device})} */
    static DeviceTable cuda() {
        return () -> org.cudaipc4j.cuda.Device.all().stream()
                .map(d -> new VisibleDevice(d.ordinal(), d.uuid(), d.name())).toList();
    }
}
