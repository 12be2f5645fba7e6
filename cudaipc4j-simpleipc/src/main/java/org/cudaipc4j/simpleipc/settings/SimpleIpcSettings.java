package org.cudaipc4j.simpleipc.settings;

import java.time.Duration;
import org.cudaipc4j.base.Setting;
import org.cudaipc4j.cuda.DriverEnvironment;
import org.cudaipc4j.tool.Sizes;

/** The settings this module reads (see {@link Setting}); public for the benchmarks, which start its processes. */
public final class SimpleIpcSettings {
    private SimpleIpcSettings() {}

    /** The parent's phases, each on standard error as it is reached: tests stop a run at a phase of their choice. */
    public static final Setting<Boolean> TRACE_PHASES = Setting.switchProperty("cudaipc4j.tracePhases",
            "true: the parent prints 'cudaipc4j: phase NAME' on standard error as it reaches each phase");

    /** The driver's work queues per context: one unless set, in this process and its children. */
    public static final Setting<String> MAX_CONNECTIONS = Setting.variable(DriverEnvironment.MAX_CONNECTIONS, "1",
            "Hardware work queues per context; the tool's processes use one stream each, so 1 unless set");

    /** Whether the children may start from the AOT cache a parent started by {@code java -jar} records. */
    public static final Setting<Boolean> NO_AOT = Setting.switchVariable("CUDAIPC4J_AOT", "0",
            "0: no JDK AOT start-up cache for the children");

    /** The folder above the children's AOT caches, else {@code ~/.cache}. */
    public static final Setting<String> XDG_CACHE_HOME = Setting.variable("XDG_CACHE_HOME", null,
            "Where a java -jar parent keeps its children's AOT cache: $XDG_CACHE_HOME/cudaipc4j, else ~/.cache");

    /** When the run started, in microseconds since the epoch, where a build came before it. */
    public static final Setting<String> RUN_START = Setting.variable("CUDAIPC4J_RUN_START", null,
            "Set by ./cudaipc4j: when the run itself started (microseconds since the epoch), the build left out");

    /** Where the run writes its JSON report. */
    public static final Setting<String> REPORT = Setting.variable("CUDAIPC4J_REPORT", null,
            "A file path: the run writes its JSON report there");

    /** The host backend's longest wait, read by the parent, which hands it to its children with their settings. */
    public static final Setting<Duration> WAIT_TIMEOUT = Setting.property("cudaipc4j.host.waitTimeoutMs", "60000",
            "Host backend only: the longest wait on a simulated event or stream, in milliseconds",
            new WaitTimeout());

    /** Measurement switch: the children start only once the parent's driver has started. */
    public static final Setting<Boolean> NO_EARLY_START = Setting.switchProperty("cudaipc4j.noEarlyStart",
            "true: the children start only after the parent's driver has started and the devices are selected");

    /** The CUDA driver's device list: when set, the parent does not guess the group's size before its driver. */
    public static final Setting<String> CUDA_VISIBLE_DEVICES = Setting.variable("CUDA_VISIBLE_DEVICES", null,
            "Hides or renumbers GPUs; when set, the tool does not guess its children from /proc before the driver");

    /** Each NCCL rank a host of its own ({@code NcclRotation}). */
    public static final Setting<Boolean> NCCL_SEPARATE_HOSTS = Setting.switchVariable(
            "CUDAIPC4J_NCCL_SEPARATE_HOSTS", "1",
            "1: each NCCL rank is a host of its own to NCCL, so that several ranks can share one GPU");

    /**
     * Reads {@link #WAIT_TIMEOUT}: a class rather than a method reference, as {@link Setting} asks, since the parent
     * reads these settings on its way to starting its children.
     */
    private static final class WaitTimeout implements Setting.Parse<Duration> {
        @Override
        public Duration from(String text) {
            try {
                long ms = Long.parseLong(text.trim());
                if (ms > 0 && ms <= Sizes.LONGEST.toMillis()) {
                    return Duration.ofMillis(ms);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(WAIT_TIMEOUT.name() + " must be a positive number of milliseconds, at"
                    + " most " + Sizes.LONGEST.toMillis() + " (a hundred years): '" + text + "'");
        }
    }
}
