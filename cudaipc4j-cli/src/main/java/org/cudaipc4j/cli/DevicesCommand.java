package org.cudaipc4j.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.ipc.IpcCapabilities;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.Failures;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Lists CUDA devices, which ways of sharing memory work on each (and why not where one does not), and the
 * peer-access matrix, as text or JSON. Without a usable driver or without devices it says why in one line (and, with
 * {@code --json}, as a JSON object on stdout) and exits {@link ExitCodes#WAIVED}.
 */
@Command(name = "devices", mixinStandardHelpOptions = true,
        description = "List CUDA devices, which ways of sharing memory work on each, and peer access between them.")
final class DevicesCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print JSON instead of text.")
    private boolean json;

    /** One device as reported. {@code ipcReason} is null when the device is IPC-capable. */
    record DeviceReport(int ordinal, String uuid, String name, String pciBusId, long totalMemoryBytes,
                        int multiprocessors, String computeCapability, boolean unifiedAddressing, String computeMode,
                        boolean ipcCapable, String ipcReason, Map<String, PathReport> ipcPaths) {}

    /** Whether one way of sharing memory works on a device, and why not ({@code reason} null when it does). */
    record PathReport(boolean supported, String reason) {}

    /** All devices; {@code peerAccess[i][j]}: device i can access device j (null on the diagonal). */
    record Report(String driverVersion, NcclReport nccl, List<DeviceReport> devices, List<List<Boolean>> peerAccess) {}

    /**
     * The NCCL that {@code --transport nccl} would load ({@code CUDAIPC4J_NCCL_LIBRARY}, else {@code libnccl.so.2}):
     * its version and file, or why it cannot be used ({@code version} null then).
     */
    record NcclReport(String version, String library, String reason) {
        static NcclReport probe() {
            try {
                org.cudaipc4j.nccl.Nccl nccl = org.cudaipc4j.nccl.Nccl.load();
                return new NcclReport(nccl.version().toString(), nccl.library(), null);
            } catch (org.cudaipc4j.nccl.NcclUnavailableException e) {
                return new NcclReport(null, null, e.getMessage());
            }
        }
    }

    /** What {@code --json} prints when no device can be listed (exit code 2 all the same). */
    record Unavailable(boolean available, String reason, List<DeviceReport> devices) {}

    /** What follows the reason there is no device: the tool runs without one too. */
    static final String NO_GPU_HINT = " (simpleIPC runs on simulated devices without a GPU: cudaipc4j --backend host)";

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String unusable = Cuda.unavailableReason().orElse(null);
        if (unusable != null) {
            if (json) {
                out.println(new GsonBuilder().setPrettyPrinting().serializeNulls().create()
                        .toJson(new Unavailable(false, unusable, List.of())));
                out.flush();
            }
            err.println(Failures.waived(unusable + NO_GPU_HINT));
            err.flush();
            return ExitCodes.WAIVED;
        }
        List<Device> devices = Device.all();
        Report report = report(devices);
        if (json) {
            out.println(new GsonBuilder().setPrettyPrinting().serializeNulls().create().toJson(report));
        } else {
            printText(report, out);
        }
        out.flush();
        return ExitCodes.OK;
    }

    static Report report(List<Device> devices) {
        List<DeviceReport> rows = new ArrayList<>();
        for (Device d : devices) {
            String reason = d.ipcUnsupportedReason().orElse(null);
            IpcCapabilities caps = IpcCapabilities.probe(d, true);
            Map<String, PathReport> paths = new LinkedHashMap<>();
            for (IpcPath p : IpcPath.values()) {
                paths.put(p.displayName(), new PathReport(caps.supports(p), caps.whyNot(p).orElse(null)));
            }
            rows.add(new DeviceReport(d.ordinal(), "GPU-" + d.uuid(), d.name(), d.pciBusId(), d.totalMemory(),
                    d.multiprocessorCount(), d.computeCapability().toString(), d.unifiedAddressing(),
                    d.computeMode().displayName(), reason == null, reason, paths));
        }
        List<List<Boolean>> peers = new ArrayList<>();
        for (Device from : devices) {
            List<Boolean> row = new ArrayList<>();
            for (Device to : devices) {
                row.add(from.equals(to) ? null : from.canAccessPeer(to));
            }
            peers.add(row);
        }
        return new Report(Cuda.driverVersionString(), NcclReport.probe(), List.copyOf(rows), List.copyOf(peers));
    }

    private static void printText(Report report, PrintWriter out) {
        int n = report.devices().size();
        out.printf("CUDA driver %s, %d device%s%n", report.driverVersion(), n, n == 1 ? "" : "s");
        NcclReport nccl = report.nccl();
        out.println(nccl.version() != null ? "NCCL " + nccl.version() + " (" + nccl.library() + ")"
                : "NCCL: none (" + nccl.reason() + ")");
        for (DeviceReport d : report.devices()) {
            out.printf("%nDevice %d: %s%n", d.ordinal(), d.name());
            out.printf("  PCI bus id          %s%n", d.pciBusId());
            out.printf(Locale.ROOT, "  memory              %.1f GiB (%d bytes)%n",
                    d.totalMemoryBytes() / (double) (1L << 30), d.totalMemoryBytes());
            out.printf("  multiprocessors     %d%n", d.multiprocessors());
            out.printf("  compute capability  %s%n", d.computeCapability());
            out.printf("  unified addressing  %s%n", d.unifiedAddressing() ? "yes" : "no");
            out.printf("  compute mode        %s%n", d.computeMode());
            out.printf("  UUID                %s%n", d.uuid());
            out.printf("  IPC capable         %s%n", d.ipcCapable() ? "yes" : "no (" + d.ipcReason() + ")");
            for (Map.Entry<String, PathReport> p : d.ipcPaths().entrySet()) {
                out.printf("  IPC %-15s %s%n", p.getKey(), p.getValue().supported() ? "yes"
                        : "no: " + p.getValue().reason());
            }
        }
        out.printf("%nPeer access (row device can access column device):%n     ");
        for (DeviceReport d : report.devices()) {
            out.printf(" %4d", d.ordinal());
        }
        out.println();
        for (int i = 0; i < n; i++) {
            out.printf("  %3d", report.devices().get(i).ordinal());
            for (Boolean can : report.peerAccess().get(i)) {
                out.printf(" %4s", can == null ? "-" : can ? "yes" : "no");
            }
            out.println();
        }
    }
}
