package org.cudaipc4j.simpleipc.nccl;

import java.time.Duration;
import java.util.List;

/**
 * What {@code --transport nccl} runs.
 *
 * @param bytes bytes per rank's buffer, split into one part per rank
 * @param rounds rounds of the rotation; each is one turn per rank
 * @param timeout bound on the run
 * @param devices device ordinals to use (empty: all visible); a rank takes {@code devices[localRank % count]}
 * @param procsPerDevice ranks per device when the tool starts its ranks itself
 */
public record NcclRunOptions(long bytes, int rounds, Duration timeout, List<Integer> devices, int procsPerDevice) {
    /** Copies the device list. */
    public NcclRunOptions {
        devices = List.copyOf(devices);
    }
}
