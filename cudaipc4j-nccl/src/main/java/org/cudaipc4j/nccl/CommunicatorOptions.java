package org.cudaipc4j.nccl;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Communicator} is made: the longest any of its steps may take (initialisation, a call NCCL answers
 * with {@code ncclInProgress}, finalisation), and the {@code ncclConfig_t} fields this library lets callers set.
 * Every communicator is non-blocking ({@code blocking = 0}): that is what lets a deadline or a watchdog end it.
 *
 * @param timeout the longest a step may take before the communicator is aborted
 * @param name {@code commName}, shown in NCCL's logs, or {@code null}
 * @param netName {@code netName}, the network plugin NCCL must use (such as {@code Socket}), or {@code null} to
 *     let NCCL choose
 * @param splitShare whether communicators split from this one share its resources ({@code splitShare})
 */
public record CommunicatorOptions(Duration timeout, String name, String netName, boolean splitShare) {
    /** The defaults: 60 s, no name, NCCL's choice of network, no sharing with splits. */
    public static final CommunicatorOptions DEFAULTS = new CommunicatorOptions(Duration.ofSeconds(60), null, null,
            false);

    /** Checks the timeout is positive. */
    public CommunicatorOptions {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a communicator's timeout must be positive, got " + timeout);
        }
    }

    /** These options with {@code timeout}. */
    public CommunicatorOptions withTimeout(Duration timeout) {
        return new CommunicatorOptions(timeout, name, netName, splitShare);
    }

    /** These options with {@code name}. */
    public CommunicatorOptions withName(String name) {
        return new CommunicatorOptions(timeout, name, netName, splitShare);
    }

    /** These options with {@code netName}. */
    public CommunicatorOptions withNetName(String netName) {
        return new CommunicatorOptions(timeout, name, netName, splitShare);
    }

    /** These options with {@code splitShare}. */
    public CommunicatorOptions withSplitShare(boolean splitShare) {
        return new CommunicatorOptions(timeout, name, netName, splitShare);
    }
}
