package org.cudaipc4j.interop;

import java.util.UUID;

/**
 * A GPU as this process sees it: its ordinal here (which {@code CUDA_VISIBLE_DEVICES} can make differ from another
 * process's) and its UUID (the same everywhere on the machine).
 *
 * @param ordinal the device's ordinal in this process
 * @param uuid the device's UUID
 * @param name the device's name, as the driver gives it
 */
public record VisibleDevice(int ordinal, UUID uuid, String name) {}
