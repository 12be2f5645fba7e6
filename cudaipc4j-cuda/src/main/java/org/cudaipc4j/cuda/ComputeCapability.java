package org.cudaipc4j.cuda;

/**
 * A device's compute capability, e.g. 9.0 for Hopper.
 *
 * @param major the major version, e.g. 9
 * @param minor the minor version, e.g. 0
 */
public record ComputeCapability(int major, int minor) implements Comparable<ComputeCapability> {
    @Override
    public int compareTo(ComputeCapability o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
