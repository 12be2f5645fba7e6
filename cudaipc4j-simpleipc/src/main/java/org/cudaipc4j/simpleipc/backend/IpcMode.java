package org.cudaipc4j.simpleipc.backend;

import java.util.Locale;

/** How the parent's buffers travel to the children ({@code --ipc}). */
public enum IpcMode {
    /** {@code cuMemAlloc_v2} memory and 64-byte legacy IPC handles in the control block: the sample's way. */
    LEGACY,
    /** VMM allocations ({@code cuMemCreate}) passed as file descriptors over the group's Unix socket. */
    VMM,
    /** Allocations of an exportable memory pool: the pool's file descriptor over the socket, 64 bytes per buffer. */
    POOL;

    /** The name on the command line, e.g. {@code vmm}. */
    public String optionName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when file descriptors must travel beside the control block. */
    public boolean passesFileDescriptors() {
        return this != LEGACY;
    }

    /** The mode named {@code name} on the command line. @throws IllegalArgumentException for another name */
    public static IpcMode parse(String name) {
        for (IpcMode m : values()) {
            if (m.optionName().equals(name.toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("must be legacy, vmm or pool, got '" + name + "'");
    }
}
