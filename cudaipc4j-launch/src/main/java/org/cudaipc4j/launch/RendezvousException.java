package org.cudaipc4j.launch;

import java.util.Optional;

/**
 * A rendezvous or a barrier that did not complete. The message is one line naming what went wrong: who did not
 * arrive, who refused whom and why, or the fault that ended the group.
 */
public final class RendezvousException extends LaunchException {
    private static final long serialVersionUID = 1L;

    /** The fault behind it, when a rank failed. */
    private final transient Fault fault;

    /**
     * A failure without a fault behind it.
     *
     * @param message the one line that says what went wrong
     */
    public RendezvousException(String message) {
        this(message, null, null);
    }

    RendezvousException(String message, Fault fault, Throwable cause) {
        super(message, cause);
        this.fault = fault;
    }

    /**
     * The fault that caused it, when a rank died, hung or left.
     *
     * @return the fault, or empty when the failure was something else (a timeout, a refusal)
     */
    public Optional<Fault> fault() {
        return Optional.ofNullable(fault);
    }
}
