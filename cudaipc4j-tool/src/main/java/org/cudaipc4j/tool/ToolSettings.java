package org.cudaipc4j.tool;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}); public for the tool's applications, which read them too. */
public final class ToolSettings {
    private ToolSettings() {}

    /**
     * Set by {@code bench} for each run of the tool it starts: its pid. The run stops, as on SIGTERM (its group
     * ended, what it made removed), once that process is gone, so a bench killed by SIGKILL leaves no run behind
     * ({@link ProcessExit#whenBenchGone}).
     */
    public static final Setting<String> BENCH_PID = Setting.variable("CUDAIPC4J_BENCH_PID", null,
            "Set by bench for each run it starts: its pid; the run stops once that process is gone");

    /** Stack traces with the one-line errors ({@link Failures#debug()}). */
    static final Setting<Boolean> DEBUG = Setting.switchVariable("CUDAIPC4J_DEBUG", "1",
            "1: a failure prints its stack trace after the one-line error");
}
