package org.cudaipc4j.nccl;

/**
 * The root of what the NCCL library throws: catch it for any failure of NCCL or of a communicator. Beneath it, a call
 * that returned an error ({@link NcclCallException}, with the call and its {@code ncclResult_t}), a communicator
 * aborted ({@link CommunicatorAbortedException}), NCCL that cannot be used here ({@link NcclUnavailableException})
 * and a release that lacks a function ({@link NcclMissingFunctionException}).
 */
public class NcclException extends RuntimeException {
    /**
     * An exception with {@code message}.
     *
     * @param message what went wrong, in one line
     */
    public NcclException(String message) {
        super(message);
    }
}
