package org.cudaipc4j.coord;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}). */
final class CoordSettings {
    private CoordSettings() {}

    /** The folder of the shared-memory segments ({@link SharedSegment#directory()}), passed on to child JVMs. */
    static final Setting<String> SHM_DIR = Setting.property("cudaipc4j.shm.dir", "/dev/shm",
            "The folder of the shared-memory segments and of the descriptor sockets' folders; passed to children");
}
