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
                    + " stopped", new SilenceLimit());

    /**
     * The pid of the process that started this one, set by the {@link Supervisor} for every member it starts
     * ({@link ParentWatch#starter}): a child that learnt its starter from {@code getppid} at its own start would
     * name its new parent (init, a subreaper) when the starter died before, and never see it gone.
     */
    static final Setting<String> STARTER_PID = Setting.variable("CUDAIPC4J_STARTER_PID", null,
            "Set by the tool for every process it starts (simpleIPC's children, NCCL ranks): its pid. Such a process"
                    + " ends within 0.2 s of that one ending (when it is no longer its parent), so a tool killed by"
                    + " SIGKILL leaves none running");

    /**
     * Reads {@link #HEARTBEAT_TIMEOUT}: a class rather than a method reference, as {@link Setting} asks, since every
     * child reads these settings first thing, and a child's first lambda costs it milliseconds of linking.
     */
    private static final class SilenceLimit implements Setting.Parse<java.time.Duration> {
        @Override
        public java.time.Duration from(String text) {
            return Liveness.silenceLimitFrom(text);
        }
    }
}
