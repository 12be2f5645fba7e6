package org.cudaipc4j.cuda;

import java.util.List;

/** The CUDA driver library (libcuda) could not be loaded under any of the names tried: no NVIDIA driver here. */
public final class DriverNotFoundException extends CudaDriverException {
    private static final long serialVersionUID = 1L;

    /** The library names tried, in order. */
    private final List<String> namesTried;

    /**
     * Makes the exception for a driver that did not load.
     *
     * @param namesTried the library names tried, in order
     */
    public DriverNotFoundException(List<String> namesTried) {
        super("no NVIDIA driver found: could not load " + String.join(", ", namesTried));
        this.namesTried = List.copyOf(namesTried);
    }

    /** {@return the library names that were tried, in order} */
    public List<String> namesTried() {
        return namesTried;
    }
}
