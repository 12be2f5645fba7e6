package org.cudaipc4j.cuda.ipc;

import java.util.Optional;

/**
 * The ways device memory can be shared with another process.
 *
 * <p>Each path has a fixed {@linkplain #wireCode() wire code}, the number a {@link SharedMemoryDescriptor} carries
 * for it: 0 legacy, 1 vmm-fd, 2 pool-fd, 3 vmm-fabric, 4 pool-fabric. The codes are part of the descriptor's format
 * and never change; a new path takes the next free number, wherever its constant is declared.
 */
public enum IpcPath {
    /** {@code cuMemAlloc_v2} memory through a 64-byte {@code cuIpcGetMemHandle} handle (any channel; one PID namespace). */
    LEGACY("legacy", 0),
    /** A VMM allocation ({@code cuMemCreate}) through a POSIX file descriptor (passed over a Unix socket). */
    VMM_FD("vmm-fd", 1),
    /** A memory pool's allocation: the pool through a POSIX file descriptor, then 64 bytes per buffer. */
    POOL_FD("pool-fd", 2),
    /** A VMM allocation through a 64-byte fabric handle (needs IMEX). */
    VMM_FABRIC("vmm-fabric", 3),
    /** A memory pool's allocation through the pool's fabric handle and 64 bytes per buffer (needs IMEX). */
    POOL_FABRIC("pool-fabric", 4);

    private static final IpcPath[] BY_CODE = byCode();

    private final String displayName;
    private final int wireCode;

    IpcPath(String displayName, int wireCode) {
        this.displayName = displayName;
        this.wireCode = wireCode;
    }

    /** Every path at its code's index; fails the class's initialisation if two paths share a code. */
    private static IpcPath[] byCode() {
        IpcPath[] table = new IpcPath[values().length];
        for (IpcPath p : values()) {
            if (p.wireCode < 0 || p.wireCode >= table.length || table[p.wireCode] != null) {
                throw new ExceptionInInitializerError("IPC path wire codes must be 0.." + (table.length - 1)
                        + ", each once: " + p + " has " + p.wireCode);
            }
            table[p.wireCode] = p;
        }
        return table;
    }

    /** {@return the number that stands for this path in a descriptor's bytes (see the class comment)} */
    public int wireCode() {
        return wireCode;
    }

    /**
     * {@return the path whose {@linkplain #wireCode() wire code} is {@code code}, empty for a code no path has}
     *
     * @param code a wire code, as read from a descriptor
     */
    public static Optional<IpcPath> ofWireCode(int code) {
        return code >= 0 && code < BY_CODE.length ? Optional.of(BY_CODE[code]) : Optional.empty();
    }

    /** {@return the name in output and on command lines, e.g. {@code vmm-fd}} */
    public String displayName() {
        return displayName;
    }

    /** {@return true for the paths whose descriptor travels with a file descriptor} */
    public boolean needsFileDescriptor() {
        return this == VMM_FD || this == POOL_FD;
    }

    /** {@return true for the memory-pool paths} */
    public boolean isPool() {
        return this == POOL_FD || this == POOL_FABRIC;
    }
}
