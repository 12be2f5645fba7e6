package org.cudaipc4j.cuda;

/** The loaded CUDA driver library lacks a function this binding calls (usually: the driver is too old). */
public final class MissingSymbolException extends CudaDriverException {
    private static final long serialVersionUID = 1L;

    /** The missing function's name. */
    private final String symbol;

    /**
     * Makes the exception for a function the library lacks.
     *
     * @param symbol the missing function's name
     * @param library the library's name
     */
    public MissingSymbolException(String symbol, String library) {
        super(library + " has no symbol " + symbol + " (the NVIDIA driver is too old for this call)");
        this.symbol = symbol;
    }

    /** {@return the missing function's name} */
    public String symbol() {
        return symbol;
    }
}
