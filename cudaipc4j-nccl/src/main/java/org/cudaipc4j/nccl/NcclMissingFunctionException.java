package org.cudaipc4j.nccl;

/** The loaded NCCL library does not export a function that a call needs (an older release than the call needs). */
public class NcclMissingFunctionException extends NcclException {
    /**
     * {@code function} is missing from the library loaded as {@code library}, version {@code version}.
     *
     * @param function the C function
     * @param library the name or path the library was loaded by
     * @param version the library's version
     */
    public NcclMissingFunctionException(String function, String library, NcclVersion version) {
        super(library + " (NCCL " + version + ") has no " + function);
    }
}
