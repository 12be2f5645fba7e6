package org.cudaipc4j.simpleipc;

import java.util.List;

/**
 * The devices a run considers ({@code --devices}): all of them, or the listed ordinals in order, each once.
 *
 * @param ordinals the device ordinals, in the order given; empty for all devices
 */
public record DeviceSelection(List<Integer> ordinals) {
    private static final DeviceSelection ALL = new DeviceSelection(List.of());

    /**
     * Copies the ordinals.
     *
     * @throws IllegalArgumentException for a negative ordinal or one listed twice
     */
    public DeviceSelection {
        ordinals = List.copyOf(ordinals);
        // A loop, not a stream: every run makes a selection, and a stream's classes would load at each start-up.
        for (int i = 0; i < ordinals.size(); i++) {
            int ordinal = ordinals.get(i);
            if (ordinal < 0 || ordinals.subList(0, i).contains(ordinal)) {
                throw new IllegalArgumentException("device ordinals must be distinct and not negative: " + ordinals);
            }
        }
    }

    /**
     * Every device.
     *
     * @return the selection with no ordinals
     */
    public static DeviceSelection all() {
        return ALL;
    }

    /**
     * Whether every device is considered.
     *
     * @return true when no ordinal is listed
     */
    public boolean isAll() {
        return ordinals.isEmpty();
    }
}
