package org.cudaipc4j.simpleipc;

import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.cuda.CudaBackend;
import org.cudaipc4j.simpleipc.host.HostBackend;

/** Creates a backend of a kind the run settled on, configured by the run's options; the child uses the parent's. */
final class Backends {
    private Backends() {}

    static Backend create(BackendKind kind, SimpleIpcOptions options) {
        return switch (kind) {
            case CUDA -> new CudaBackend(options.kernel());
            case HOST -> new HostBackend(options.simulatedDevices(), options.hostWaitTimeout());
            case AUTO -> throw new IllegalArgumentException("a backend is cuda or host; auto is decided before");
        };
    }

    /** The kind {@code backend} is: {@code HOST} for simulated devices, else {@code CUDA}. */
    static BackendKind kindOf(Backend backend) {
        return backend.simulated() ? BackendKind.HOST : BackendKind.CUDA;
    }
}
