package org.cudaipc4j.cuda;

import java.util.List;

/** The CUDA driver library (libcuda) could not be loaded under any of the names tried: no NVIDIA driver here. */
public final class DriverNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> namesTried;

    public DriverNotFoundException(List<String> namesTried) {
        super("no NVIDIA driver found: could not load " + String.join(", ", namesTried));
        this.namesTried = List.copyOf(namesTried);
    }

    /** The library names that were tried, in order. */
    public List<String> namesTried() {
        return namesTried;
    }
}
