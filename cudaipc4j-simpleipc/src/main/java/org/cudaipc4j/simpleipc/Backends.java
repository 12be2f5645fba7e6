package org.cudaipc4j.simpleipc;

import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.cuda.CudaBackend;
import org.cudaipc4j.simpleipc.host.HostBackend;

/** Creates a backend by name; the child uses the name the parent chose. */
final class Backends {
    private Backends() {}

    static Backend create(String name, int simulatedDevices) {
        return switch (name) {
            case "cuda" -> new CudaBackend();
            case "host" -> new HostBackend(simulatedDevices);
            default -> throw new IllegalArgumentException("unknown backend '" + name + "'");
        };
    }
}
