package org.cudaipc4j.cli;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}). */
final class CliSettings {
    private CliSettings() {}

    /** Set by the launchers' training runs of the AOT cache ({@link AotTraining}). */
    static final Setting<Boolean> AOT_TRAINING = Setting.switchProperty("cudaipc4j.aotTraining",
            "Set by the AOT cache's training runs: the run loads every class of the tool before it exits");

    /** Measurement switch: every command line goes through picocli, none through the quick options' table. */
    static final Setting<Boolean> NO_QUICK_OPTIONS = Setting.switchProperty("cudaipc4j.noQuickOptions",
            "true: every command line is parsed by picocli, also the simpleIPC options the quick table takes");
}
