package org.cudaipc4j.coord;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}). */
final class CoordSettings {
    private CoordSettings() {}

    /** The folder of the shared-memory segments ({@link SharedSegment#directory()}), passed on to child JVMs. */
    static final Setting<String> SHM_DIR = Setting.property("cudaipc4j.shm.dir", "/dev/shm",
            "The folder of the shared-memory segments and of the descriptor sockets' folders; passed to children");

    /** The groups' silence limit ({@link Liveness}): a member silent for longer counts as stopped. */
    static final Setting<java.time.Duration> HEARTBEAT_TIMEOUT = Setting.variable("CUDAIPC4J_HEARTBEAT_TIMEOUT", "3",
            "The groups' silence limit in seconds (at least 0.001): a process or rank silent for longer counts as"
                    + " stopped", Liveness::silenceLimitFrom);
}
