package org.cudaipc4j.app.simpleipc;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/** Whether this machine has an NVIDIA driver (libcuda) at all; decides which no-GPU paths a test can reach. */
final class GpuPresence {
    private GpuPresence() {}

    static boolean driverLoads() {
        for (String name : new String[] {"libcuda.so.1", "libcuda.so"}) {
            try {
                SymbolLookup.libraryLookup(name, Arena.global());
                return true;
            } catch (IllegalArgumentException e) {
                // not found under this name
            }
        }
        return false;
    }
}
