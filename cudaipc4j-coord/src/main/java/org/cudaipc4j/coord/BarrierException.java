package org.cudaipc4j.coord;

/**
 * A {@link Barrier} wait ended without every process arriving: the group was aborted, a participant died,
 * or the wait timed out. The message names the process and the round.
 */
public class BarrierException extends CoordinationException {
    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public BarrierException(String message) {
        super(message);
    }
}
