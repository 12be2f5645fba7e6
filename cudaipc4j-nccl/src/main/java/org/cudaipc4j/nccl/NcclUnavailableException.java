package org.cudaipc4j.nccl;

/**
 * NCCL cannot be used in this process: its library does not load, lacks {@code ncclGetVersion}, or is older than
 * {@link NcclVersion#MINIMUM}. The message names the file tried and what to change.
 */
public class NcclUnavailableException extends NcclException {
    /**
     * With a one-line {@code message}.
     *
     * @param message what is missing or wrong, in one line
     */
    public NcclUnavailableException(String message) {
        super(message);
    }
}
