package org.cudaipc4j.nccl;

/**
 * An NCCL release as {@code ncclGetVersion} reports it: {@code NCCL_VERSION(X, Y, Z) = X*10000 + Y*100 + Z} from
 * NCCL 2.9 on (2.28.9 is {@code 22809}).
 *
 * @param code the number {@code ncclGetVersion} returns
 */
public record NcclVersion(int code) implements Comparable<NcclVersion> {
    /** The oldest NCCL this library supports: 2.19.0, the first with {@code ncclCommRegister} and splits. */
    public static final NcclVersion MINIMUM = of(2, 19, 0);

    /** Checks that {@code code} is a version of the {@code X*10000 + Y*100 + Z} scheme. */
    public NcclVersion {
        if (code < 20900) {
            throw new IllegalArgumentException("not an NCCL version code of 2.9 or later: " + code);
        }
    }

    /**
     * {@return the version {@code major.minor.patch}}
     *
     * @param major the major version
     * @param minor the minor version
     * @param patch the patch level
     */
    public static NcclVersion of(int major, int minor, int patch) {
        if (minor < 0 || minor > 99 || patch < 0 || patch > 99) {
            throw new IllegalArgumentException("NCCL version " + major + "." + minor + "." + patch + " out of range");
        }
        return new NcclVersion(major * 10000 + minor * 100 + patch);
    }

    /** {@return the major version} */
    public int major() {
        return code / 10000;
    }

    /** {@return the minor version} */
    public int minor() {
        return code / 100 % 100;
    }

    /** {@return the patch level} */
    public int patch() {
        return code % 100;
    }

    @Override
    public int compareTo(NcclVersion other) {
        return Integer.compare(code, other.code);
    }

    /** {@code major.minor.patch}, as NCCL prints it. */
    @Override
    public String toString() {
        return major() + "." + minor() + "." + patch();
    }
}
