package org.cudaipc4j.nccl;

/**
 * An NCCL call that returned an error: the call, the {@code ncclResult_t} (kept as its number when this library
 * does not know it) and NCCL's messages ({@code ncclGetErrorString}, and {@code ncclGetLastError} where there is one).
 * One of the library's {@link NcclException}s.
 */
public class NcclCallException extends NcclException {
    /** The C function that failed. */
    private final String call;
    /** The {@code ncclResult_t} it returned. */
    private final int code;

    /**
     * An error {@code code} returned by {@code call}, with NCCL's {@code description}.
     *
     * @param call the C function that failed
     * @param code the {@code ncclResult_t} it returned
     * @param description NCCL's description, or empty
     */
    public NcclCallException(String call, int code, String description) {
        super(call + " failed: " + NcclResult.nameOf(code) + (description.isEmpty() ? "" : ": " + description));
        this.call = call;
        this.code = code;
    }

    /** {@return the C function that failed} */
    public String call() {
        return call;
    }

    /** {@return the {@code ncclResult_t} it returned} */
    public int code() {
        return code;
    }

    /** {@return the result, or {@code null} for a code this library does not know} */
    public NcclResult result() {
        return NcclResult.of(code);
    }
}
