package org.cudaipc4j.bench;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}). */
final class BenchSettings {
    private BenchSettings() {}

    /** Where an MPS control daemon listens: passed on to the runs a bench starts. */
    static final Setting<String> MPS_PIPE_DIRECTORY = Setting.variable("CUDA_MPS_PIPE_DIRECTORY", null,
            "Where an MPS control daemon listens (the driver's default /tmp/nvidia-mps); bench passes it on");
}
