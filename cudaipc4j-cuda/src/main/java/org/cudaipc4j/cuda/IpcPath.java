package org.cudaipc4j.cuda;

/** The ways device memory can be shared with another process. */
public enum IpcPath {
    /** {@code cuMemAlloc_v2} memory through a 64-byte {@code cuIpcGetMemHandle} handle (any channel; one PID namespace). */
    LEGACY("legacy"),
    /** A VMM allocation ({@code cuMemCreate}) through a POSIX file descriptor (passed over a Unix socket). */
    VMM_FD("vmm-fd"),
    /** A memory pool's allocation: the pool through a POSIX file descriptor, then 64 bytes per buffer. */
    POOL_FD("pool-fd"),
    /** A VMM allocation through a 64-byte fabric handle (needs IMEX). */
    VMM_FABRIC("vmm-fabric"),
    /** A memory pool's allocation through the pool's fabric handle and 64 bytes per buffer (needs IMEX). */
    POOL_FABRIC("pool-fabric");

    private final String displayName;

    IpcPath(String displayName) {
        this.displayName = displayName;
    }

    /** The name in output and on command lines, e.g. {@code vmm-fd}. */
    public String displayName() {
        return displayName;
    }

    /** True for the paths whose descriptor travels with a file descriptor. */
    public boolean needsFileDescriptor() {
        return this == VMM_FD || this == POOL_FD;
    }

    /** True for the memory-pool paths. */
    public boolean isPool() {
        return this == POOL_FD || this == POOL_FABRIC;
    }
}
