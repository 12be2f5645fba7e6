package org.cudaipc4j.nccl;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Communicator} is made: the longest any of its steps may take (initialisation, a call NCCL answers
 * with {@code ncclInProgress}, finalisation), and the {@code ncclConfig_t} fields this library lets callers set.
 *
 * <p>Communicators are non-blocking by default ({@code blocking = 0}): no call waits inside NCCL, so a deadline or the
 * watchdog ends every wait, initialisation included. The price is NCCL's: each operation outside a group is handed
 * to a thread NCCL starts for it, tens of microseconds that dominate small messages (group them with
 * {@link Communicator#group}). A blocking communicator ({@link #withBlocking}) runs each operation on the calling
 * thread as torch's do, for the lowest small-message latency; its initialisation and finalisation wait inside NCCL,
 * where only the watchdog's abort from its own thread can end them.
 *
 * @param timeout the longest a step may take before the communicator is aborted
 * @param name {@code commName}, shown in NCCL's logs, or {@code null}
 * @param netName {@code netName}, the network plugin NCCL must use (such as {@code Socket}), or {@code null} to
 *     let NCCL choose
 * @param splitShare whether communicators split from this one share its resources ({@code splitShare})
 * @param blocking whether NCCL runs operations on the calling thread ({@code blocking = 1}; see above)
 */
public record CommunicatorOptions(Duration timeout, String name, String netName, boolean splitShare,
                                  boolean blocking) {
    /** The defaults: 60 s, no name, NCCL's choice of network, no sharing with splits, non-blocking. */
    public static final CommunicatorOptions DEFAULTS = new CommunicatorOptions(Duration.ofSeconds(60), null, null,
            false, false);

    /** Checks the timeout is positive. */
    public CommunicatorOptions {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a communicator's timeout must be positive, got " + timeout);
        }
    }

    /**
     * {@return these options with {@code timeout}}
     *
     * @param timeout the new timeout
     */
    public CommunicatorOptions withTimeout(Duration timeout) {
        return new CommunicatorOptions(timeout, name, netName, splitShare, blocking);
    }

    /**
     * {@return these options with {@code name}}
     *
     * @param name the new name
     */
    public CommunicatorOptions withName(String name) {
        return new CommunicatorOptions(timeout, name, netName, splitShare, blocking);
    }

    /**
     * {@return these options with {@code netName}}
     *
     * @param netName the new network name
     */
    public CommunicatorOptions withNetName(String netName) {
        return new CommunicatorOptions(timeout, name, netName, splitShare, blocking);
    }

    /**
     * {@return these options with {@code blocking} (see the class's description)}
     *
     * @param blocking the new blocking mode
     */
    public CommunicatorOptions withBlocking(boolean blocking) {
        return new CommunicatorOptions(timeout, name, netName, splitShare, blocking);
    }

    /**
     * {@return these options with {@code splitShare}}
     *
     * @param splitShare the new split-share setting
     */
    public CommunicatorOptions withSplitShare(boolean splitShare) {
        return new CommunicatorOptions(timeout, name, netName, splitShare, blocking);
    }
}
