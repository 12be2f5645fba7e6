package org.cudaipc4j.nccl;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}). */
final class NcclSettings {
    private NcclSettings() {}

    private static final String LIBRARY_DEFAULT = "libnccl.so.2";

    /** The NCCL library {@link Nccl#load()} loads; blank counts as not set. */
    static final Setting<String> LIBRARY = Setting.variable("CUDAIPC4J_NCCL_LIBRARY", LIBRARY_DEFAULT,
            "The NCCL library to load: a path (with a /) or a name the dynamic loader searches for",
            NcclSettings::library);

    private static String library(String text) {
        return text.isBlank() ? LIBRARY_DEFAULT : text.strip();
    }
}
