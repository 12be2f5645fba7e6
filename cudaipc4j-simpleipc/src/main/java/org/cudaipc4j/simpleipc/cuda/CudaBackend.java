package org.cudaipc4j.simpleipc.cuda;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.ComputeMode;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.ipc.IpcCapabilities;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.backend.NoIpcDeviceException;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;

/**
 * The simpleIPC workload on real GPUs through the CUDA driver. The parent selects and prepares devices and
 * exports one {@code cuMemAlloc_v2} buffer and one interprocess event per child; each child attaches to its
 * device and opens every sibling's handles.
 *
 * <p>The fill kernel is {@value BuiltinKernels#FILL_BYTES_VEC16} unless the backend is made with
 * {@link BuiltinKernels.Fill#SIMPLE}, the sample's one-byte kernel ({@value BuiltinKernels#FILL_BYTES}, grid =
 * active blocks per SM at 128 threads times the SM count).
 *
 * <p>Threading: the CUDA driver binds contexts to OS threads. Call the parent's methods from one platform thread;
 * an {@link Attachment} belongs to the platform thread that created it and refuses calls from any other.
 */
public final class CudaBackend implements Backend {
    /** The fill kernel of this backend's attachments. */
    private final BuiltinKernels.Fill kernel;
    private final Map<Integer, Context> contexts = new LinkedHashMap<>();
    /** The exportable pool of each device ({@code --ipc pool}), made on first use, owned by its context. */
    private final Map<Integer, MemoryPool> pools = new LinkedHashMap<>();
    private final Map<Integer, Stream> poolStreams = new LinkedHashMap<>();
    private final List<AutoCloseable> handedOut = new ArrayList<>();
    private boolean closed;

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public boolean simulated() {
        return false;
    }

    /** A backend whose attachments fill with {@link BuiltinKernels.Fill#VEC16}. */
    public CudaBackend() {
        this(BuiltinKernels.Fill.VEC16);
    }

    /** A backend whose attachments fill with {@code kernel}. */
    public CudaBackend(BuiltinKernels.Fill kernel) {
        this.kernel = java.util.Objects.requireNonNull(kernel, "kernel");
    }

    /** The fill kernel of this backend's attachments. */
    BuiltinKernels.Fill fillKernel() {
        return kernel;
    }

    @Override
    public void startDriver() {
        requireOpen();
        Cuda.init();
    }

    @Override
    public synchronized List<Integer> selectDevices(List<Integer> requested, int maxDevices, Consumer<String> log) {
        requireOpen();
        if (maxDevices < 1) {
            throw new IllegalArgumentException("maxDevices must be at least 1, got " + maxDevices);
        }
        int count = deviceCount();
        List<Integer> candidates = new ArrayList<>();
        if (requested.isEmpty()) {
            for (int i = 0; i < count; i++) {
                candidates.add(i);
            }
        } else {
            Set<Integer> seen = new HashSet<>();
            for (int ordinal : requested) {
                if (ordinal < 0 || ordinal >= count) {
                    throw new IllegalArgumentException("no CUDA device " + ordinal + " (" + count + " present)");
                }
                if (!seen.add(ordinal)) {
                    throw new IllegalArgumentException("CUDA device " + ordinal + " requested twice");
                }
                candidates.add(ordinal);
            }
        }
        List<Device> selected = new ArrayList<>();
        for (int ordinal : candidates) {
            if (selected.size() == maxDevices) {
                break;
            }
            Device d = Device.get(ordinal);
            if (!d.unifiedAddressing()) {
                log.accept("Device " + ordinal + " does not support unified addressing, skipping...");
            } else if (d.computeMode() != ComputeMode.DEFAULT) {
                log.accept("Device " + ordinal + " is in an unsupported compute mode for this sample");
            } else if (!peerCapableWithAll(d, selected)) {
                log.accept("Device " + ordinal + " is not peer capable with some other selected peers, skipping");
            } else {
                selected.add(d);
            }
        }
        if (selected.isEmpty()) {
            throw new NoIpcDeviceException("No CUDA devices support IPC");
        }
        return selected.stream().map(Device::ordinal).toList();
    }

    /** The device count, or the reason there can be no IPC device as a {@link NoIpcDeviceException}. */
    private static int deviceCount() {
        java.util.Optional<String> why = Cuda.unavailableReason();
        if (why.isPresent()) {
            throw new NoIpcDeviceException("No CUDA devices support IPC: " + why.get());
        }
        return Device.count();
    }

    private static boolean peerCapableWithAll(Device d, List<Device> selected) {
        for (Device s : selected) {
            if (!d.canAccessPeer(s) || !s.canAccessPeer(d)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void prepareDevices(List<Integer> selected) {
        requireOpen();
        List<Context> prepared = new ArrayList<>();
        for (int ordinal : selected) {
            prepared.add(context(ordinal));
        }
        for (int i = 0; i < prepared.size(); i++) {
            for (int j = 0; j < i; j++) {
                Context a = prepared.get(i);
                Context b = prepared.get(j);
                try {
                    a.enablePeerAccess(b);
                    b.enablePeerAccess(a);
                } catch (CudaException e) {
                    throw new BackendException("enabling peer access between " + a.device() + " and " + b.device()
                            + " failed: " + e.getMessage(), e);
                }
            }
        }
    }

    /** The parent's retained primary context of {@code ordinal}, retained on first use. */
    private Context context(int ordinal) {
        Context ctx = contexts.get(ordinal);
        if (ctx == null) {
            try {
                ctx = Context.retainPrimary(Device.get(ordinal));
            } catch (CudaException e) {
                throw new BackendException("retaining the primary context of device " + ordinal + " failed: "
                        + e.getMessage(), e);
            }
            contexts.put(ordinal, ctx);
        }
        return ctx;
    }

    @Override
    public CudaExport export(int device, long bytes) {
        return export(device, bytes, IpcMode.LEGACY);
    }

    @Override
    public synchronized CudaExport export(int device, long bytes, IpcMode mode) {
        requireOpen();
        Context ctx = context(device);
        MemoryPool pool = null;
        Stream stream = null;
        if (mode == IpcMode.POOL) {
            pool = pools.get(device);
            if (pool == null) {
                try {
                    pool = MemoryPool.create(ctx, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0);
                    pools.put(device, pool);
                    poolStreams.put(device, Stream.create(ctx, true));
                } catch (CudaException e) {
                    throw new BackendException("creating an exportable memory pool on device " + device
                            + " failed: " + e.getMessage(), e);
                }
            }
            stream = poolStreams.get(device);
        }
        CudaExport export = CudaExport.create(ctx, bytes, mode, pool, stream);
        handedOut.add(export);
        return export;
    }

    /** Why {@code mode} cannot share device {@code ordinal}'s memory, from the device's attributes. */
    @Override
    public java.util.Optional<String> unsupported(int ordinal, IpcMode mode) {
        IpcPath path = switch (mode) {
            case LEGACY -> IpcPath.LEGACY;
            case VMM -> IpcPath.VMM_FD;
            case POOL -> IpcPath.POOL_FD;
        };
        return IpcCapabilities.probe(Device.get(ordinal), false).whyNot(path)
                .map(why -> "--ipc " + mode.optionName() + " needs " + path.displayName() + " on device " + ordinal
                        + ": " + why);
    }

    @Override
    public java.util.UUID deviceUuid(int ordinal) {
        requireOpen();
        return Device.get(ordinal).uuid();
    }

    @Override
    public CudaAttachment attach(int ordinal) {
        return attach(deviceUuid(ordinal));
    }

    @Override
    public synchronized CudaAttachment attach(java.util.UUID uuid) {
        requireOpen();
        CudaAttachment attachment = CudaAttachment.create(uuid, fillKernel());
        handedOut.add(attachment);
        return attachment;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the CUDA backend is closed");
        }
    }

    /**
     * Closes what this backend handed out and is still open (newest first), then releases the contexts it
     * retained. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> order = new ArrayList<>(handedOut.reversed());
        order.addAll(new ArrayList<>(poolStreams.values()).reversed());
        order.addAll(new ArrayList<>(pools.values()).reversed());
        order.addAll(new ArrayList<>(contexts.values()).reversed());
        handedOut.clear();
        poolStreams.clear();
        pools.clear();
        contexts.clear();
        Closeables.closeAll(order.toArray(AutoCloseable[]::new));
    }
}
