package org.cudaipc4j.simpleipc.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;
import org.cudaipc4j.tool.Sizes;

/**
 * simpleIPC's devices simulated in host shared memory, with CUDA's ordering semantics, so the whole program runs
 * (separate processes, handles in the control block, streams, events, barrier) on a machine without a GPU.
 *
 * <ul>
 *   <li>A device buffer is a shared-memory segment; an interprocess event is a small segment of completion
 *       tickets. Their 64-byte handles name the segments ({@link HostHandle}).</li>
 *   <li>A stream is one platform thread running tasks in order; the kernel is a byte fill.</li>
 *   <li>{@code record} takes a ticket when called; {@code streamWait} waits for the most recent ticket at the
 *       time of the call, never for a later record.</li>
 *   <li>A wait gives up after the backend's wait timeout (the tool's parent reads it from the system property
 *       {@code cudaipc4j.host.waitTimeoutMs}, milliseconds, default 60 s, and hands it to its children with their
 *       settings), when its attachment is closed, or when the process that recorded the event has exited.</li>
 * </ul>
 * Segments are named by {@code SharedSegment} in the shared-memory directory, so a crashed run's segments are
 * reaped like any other.
 */
public final class HostBackend implements Backend {

    /** The most devices a host backend simulates (the control block's process limit). */
    public static final int MAX_DEVICES = 1024;

    private final int devices;
    private final long waitTimeoutNanos;
    private final List<AutoCloseable> resources = new ArrayList<>(); // guarded by this, creation order
    private boolean closed;

    /** A backend of {@code simulatedDevices} devices, ordinals 0..n-1, with the default wait timeout. */
    public HostBackend(int simulatedDevices) {
        this(simulatedDevices, SimpleIpcSettings.WAIT_TIMEOUT.valueOf(null));
    }

    /**
     * A backend of {@code simulatedDevices} devices, ordinals 0..n-1, whose waits give up after {@code waitTimeout}.
     *
     * @throws IllegalArgumentException for a device count outside 1..{@value #MAX_DEVICES} or a timeout that is
     *     not positive
     */
    public HostBackend(int simulatedDevices, Duration waitTimeout) {
        if (simulatedDevices < 1 || simulatedDevices > MAX_DEVICES) {
            throw new IllegalArgumentException("simulated devices must be in 1.." + MAX_DEVICES + ": " + simulatedDevices);
        }
        if (waitTimeout.isNegative() || waitTimeout.isZero()) {
            throw new IllegalArgumentException("wait timeout must be positive: " + waitTimeout);
        }
        this.devices = simulatedDevices;
        this.waitTimeoutNanos = waitTimeout.toNanos();
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public boolean simulated() {
        return true;
    }

    /** How many devices this backend simulates. */
    public int deviceCount() {
        return devices;
    }

    /**
     * Every simulated device qualifies (unified addressing, default compute mode, peer access with all others), so
     * nothing is skipped and nothing is logged.
     *
     * @throws IllegalArgumentException for an ordinal that does not exist, a repeated ordinal, or
     *         {@code maxDevices < 1}
     */
    @Override
    public List<Integer> selectDevices(List<Integer> requested, int maxDevices, Consumer<String> log) {
        if (maxDevices < 1) {
            throw new IllegalArgumentException("maxDevices must be at least 1: " + maxDevices);
        }
        List<Integer> candidates = requested.isEmpty() ? IntStream.range(0, devices).boxed().toList() : requested;
        checkOrdinals(candidates);
        return List.copyOf(candidates.subList(0, Math.min(maxDevices, candidates.size())));
    }

    /** Nothing to enable: validates the selection. */
    @Override
    public void prepareDevices(List<Integer> selected) {
        if (selected.isEmpty()) {
            throw new IllegalArgumentException("no devices selected");
        }
        checkOrdinals(selected);
    }

    /**
     * Creates the buffer segment ({@code bytes}, sized up front) and the event segment.
     *
     * @throws BackendException when the shared-memory directory has too little room or a segment cannot be made
     */
    @Override
    public Export export(int device, long bytes, org.cudaipc4j.simpleipc.backend.IpcMode mode) {
        checkDevice(device);
        if (bytes < 1) {
            throw new IllegalArgumentException("buffer size must be at least 1 byte: " + bytes);
        }
        checkSpace(device, bytes);
        synchronized (this) {
            checkOpen("export");
            HostExport export = HostExport.create(this, device, bytes, waitTimeoutNanos, mode);
            resources.add(export);
            return export;
        }
    }

    /** Simulated devices have UUIDs made of "host" and their ordinal. */
    private static final long HOST_UUID_HIGH = 0x686f_7374_0000_0000L;

    @Override
    public java.util.UUID deviceUuid(int ordinal) {
        checkDevice(ordinal);
        return new java.util.UUID(HOST_UUID_HIGH, ordinal);
    }

    @Override
    public Attachment attach(java.util.UUID uuid) {
        if (uuid.getMostSignificantBits() != HOST_UUID_HIGH) {
            throw new IllegalArgumentException("GPU-" + uuid + " is not a simulated device");
        }
        int device = (int) uuid.getLeastSignificantBits();
        checkDevice(device);
        synchronized (this) {
            checkOpen("attach");
            HostAttachment attachment = new HostAttachment(this, device, waitTimeoutNanos);
            resources.add(attachment);
            return attachment;
        }
    }

    /** Closes every attachment and export still open, newest first. Idempotent. */
    @Override
    public void close() {
        List<AutoCloseable> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(resources).reversed();
        }
        BackendException error = null;
        for (AutoCloseable r : open) {
            try {
                r.close();
            } catch (Exception e) {
                error = chain(error, "closing " + r, e);
            }
        }
        if (error != null) {
            throw error;
        }
    }

    synchronized void forget(AutoCloseable resource) {
        resources.remove(resource);
    }

    private void checkDevice(int device) {
        if (device < 0 || device >= devices) {
            throw new IllegalArgumentException("device " + device + " does not exist (" + devices
                    + " simulated devices)");
        }
    }

    private void checkOrdinals(List<Integer> ordinals) {
        Set<Integer> seen = new HashSet<>();
        for (int d : ordinals) {
            checkDevice(d);
            if (!seen.add(d)) {
                throw new IllegalArgumentException("device " + d + " is listed twice");
            }
        }
    }

    private synchronized void checkOpen(String what) {
        if (closed) {
            throw new BackendException(what + " failed: the host backend is closed");
        }
    }

    /** A clear error up front instead of a bus error on first touch of a segment the tmpfs cannot back. */
    private static void checkSpace(int device, long bytes) {
        Path dir = SharedSegment.directory();
        long usable;
        try {
            usable = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return; // creating the segment reports it
        }
        if (bytes > usable - EventSegment.SIZE) {
            throw new BackendException("cannot export " + size(bytes) + " on simulated device " + device + ": "
                    + dir + " has only " + size(usable) + " free");
        }
    }

    static BackendException chain(BackendException first, String what, Throwable e) {
        if (first == null) {
            return e instanceof BackendException be ? be : new BackendException(what + " failed: " + e.getMessage(), e);
        }
        first.addSuppressed(e);
        return first;
    }

    /** {@return a wait's deadline, {@code nanos} (the wait timeout) from now, as every wait on a simulated device has} */
    static Deadline deadline(long nanos) {
        return Deadline.after(Duration.ofNanos(nanos), "cudaipc4j.host.waitTimeoutMs");
    }

    static String seconds(long nanos) {
        double s = nanos / 1e9;
        return s == Math.rint(s) ? String.format("%d s", (long) s) : String.format("%.3f s", s);
    }

    static String size(long bytes) {
        return Sizes.format(bytes);
    }
}
