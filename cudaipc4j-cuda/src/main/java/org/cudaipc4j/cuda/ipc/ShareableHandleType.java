package org.cudaipc4j.cuda.ipc;

import java.util.Set;

/** How a VMM allocation or a memory pool can leave its process ({@code CUmemAllocationHandleType}). */
public enum ShareableHandleType {
    /** A POSIX file descriptor ({@code CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR}): travels over a Unix socket. */
    POSIX_FILE_DESCRIPTOR(0x1),
    /**
     * A 64-byte fabric handle ({@code CU_MEM_HANDLE_TYPE_FABRIC}): travels any way, across the nodes of an NVLink
     * domain too; needs the IMEX service and a channel on every node.
     */
    FABRIC(0x8);

    private final int code;

    ShareableHandleType(int code) {
        this.code = code;
    }

    /** {@return the driver's value} */
    public int code() {
        return code;
    }

    static int bits(Set<ShareableHandleType> types) {
        int bits = 0;
        for (ShareableHandleType t : types) {
            bits |= t.code;
        }
        return bits;
    }
}
