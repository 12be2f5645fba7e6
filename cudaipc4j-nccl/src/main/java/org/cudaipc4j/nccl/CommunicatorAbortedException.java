package org.cudaipc4j.nccl;

/**
 * A call on a {@link Communicator} that was aborted (by its {@link Watchdog}, a deadline, or {@link
 * Communicator#abort(String)}): the message says why. The communicator can only be closed after this.
 */
public class CommunicatorAbortedException extends NcclException {
    /**
     * With the one-line reason of the abort.
     *
     * @param reason why the communicator was aborted
     */
    public CommunicatorAbortedException(String reason) {
        super(reason);
    }
}
