package org.cudaipc4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.CudaLibrary;
import org.cudaipc4j.cuda.driver.DeviceCalls;
import org.cudaipc4j.cuda.driver.DriverCalls;

/**
 * A CUDA driver call failed. The message names the call, the error and the driver's description of it, e.g.
 * {@code cuIpcOpenMemHandle_v2 failed: CUDA_ERROR_INVALID_CONTEXT (invalid device context)}.
 */
public class CudaException extends CudaDriverException {
    private static final long serialVersionUID = 1L;

    /** The failed call. */
    private final String call;
    /** The raw {@code CUresult}. */
    private final int code;
    /** The error's name. */
    private final String errorName;
    /** The error's description. */
    private final String description;

    /**
     * Makes the exception for a failed call.
     *
     * @param call        the failed call, e.g. {@code cuMemAlloc_v2}
     * @param code        the raw {@code CUresult}
     * @param errorName   the error's name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}
     * @param description the error's description, e.g. {@code out of memory}
     */
    public CudaException(String call, int code, String errorName, String description) {
        super(call + " failed: " + errorName + " (" + description + ")");
        this.call = call;
        this.code = code;
        this.errorName = errorName;
        this.description = description;
    }

    /**
     * The exception for {@code code} returned by {@code call}, named and described by the driver
     * ({@code cuGetErrorName}, {@code cuGetErrorString}) when it can, else by {@link CudaError}.
     *
     * @param call the failed call
     * @param code the {@code CUresult} it returned
     * @return the exception
     */
    public static CudaException of(String call, int code) {
        CudaError known = CudaError.of(code);
        String name = driverText(code, true);
        if (name == null) {
            name = known == CudaError.UNRECOGNIZED ? "CUresult " + code : known.cudaName();
        }
        String description = driverText(code, false);
        if (description == null) {
            description = known.fallbackDescription();
        }
        return new CudaException(call, code, name, description);
    }

    /** The driver's name or description of {@code code}; null when there is no driver or it does not know it. */
    private static String driverText(int code, boolean name) {
        if (!CudaLibrary.isAvailable()) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = DriverCalls.pointerOut(arena);
            int r = name ? DeviceCalls.cuGetErrorName(code, out) : DeviceCalls.cuGetErrorString(code, out);
            MemorySegment text = DriverCalls.handle(out);
            if (r != CudaFunction.CUDA_SUCCESS || text.equals(MemorySegment.NULL)) {
                return null;
            }
            return text.reinterpret(Integer.MAX_VALUE).getString(0);
        } catch (RuntimeException lookupFailed) {
            return null;
        }
    }

    /** {@return the call that failed} */
    public String call() {
        return call;
    }

    /** {@return the raw {@code CUresult}} */
    public int code() {
        return code;
    }

    /** {@return the error as an enum constant ({@link CudaError#UNRECOGNIZED} for codes newer than it)} */
    public CudaError error() {
        return CudaError.of(code);
    }

    /** {@return the error's name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}} */
    public String errorName() {
        return errorName;
    }

    /** {@return the error's description} */
    public String description() {
        return description;
    }
}
