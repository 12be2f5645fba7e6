package org.cudaipc4j.simpleipc.cuda;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.HostRegistration;
import org.cudaipc4j.cuda.ipc.ImportedMemory;
import org.cudaipc4j.cuda.ipc.IpcEventHandle;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.PinnedArena;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.simpleipc.kernels.MismatchCount;

/**
 * A child's view of its device: the retained primary context (current on the owner thread), one non-blocking
 * stream, the loaded kernels, and every buffer and event it opened. All CUDA calls happen on the platform thread
 * that attached; calls from any other thread are refused.
 */
public final class CudaAttachment implements Backend.Attachment {
    private final Thread owner;
    private final Context context;
    private final Stream stream;
    private final BuiltinKernels kernels;
    private final BuiltinKernels.Fill fill;
    private final List<AutoCloseable> opened = new ArrayList<>();
    /** Pinned memory for copies to the host, grown on demand. */
    private PinnedArena hostArena;
    /** The counters' memory, registered for the device ({@code --sync counters}), and their device addresses. */
    private HostRegistration counterMemory;
    private long[] counters;
    /** Maps memory descriptors ({@code --ipc vmm|pool}), once per export; made on first use. */
    private MemoryImporter importer;
    private MemorySegment host;
    /** Progress markers, reused round robin (created on first use). */
    private Event[] markers;
    private long nextMarker;
    private boolean closed;

    private CudaAttachment(Context context, Stream stream, BuiltinKernels kernels, BuiltinKernels.Fill fill) {
        this.owner = Thread.currentThread();
        this.context = context;
        this.stream = stream;
        this.kernels = kernels;
        this.fill = fill;
    }

    static CudaAttachment create(java.util.UUID device, BuiltinKernels.Fill fill) {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException(
                    "attach from a platform thread: the CUDA driver binds the context to the OS thread");
        }
        Context context = null;
        Stream stream = null;
        try {
            context = Context.retainPrimary(Device.byUuid(device));
            context.makeCurrent();
            stream = Stream.create(context, true);
            return new CudaAttachment(context, stream, BuiltinKernels.load(context), fill);
        } catch (CudaException e) {
            BackendException failure = new BackendException("attaching to device GPU-" + device + " failed: "
                    + e.getMessage(), e);
            try {
                Closeables.closeAll(stream, context);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    /** The fill kernel in use. */
    public BuiltinKernels.Fill fillKernel() {
        return fill;
    }

    /** The grid {@link #fill} launches for {@code bytes}. */
    public int fillGrid(long bytes) {
        return kernels.grid(fill, bytes);
    }

    private void requireOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("this CUDA attachment belongs to thread '" + owner.getName()
                    + "', not '" + Thread.currentThread().getName() + "'");
        }
    }

    private void check() {
        requireOwner();
        if (closed) {
            throw new IllegalStateException("this CUDA attachment is closed");
        }
    }

    private static BackendException failed(String what, CudaException e) {
        return new BackendException(what + " failed: " + e.getMessage(), e);
    }

    /**
     * Opens a legacy handle (64 bytes) directly, or a memory descriptor through this attachment's importer, which
     * maps each export once.
     */
    @Override
    public CudaPeerBuffer openBuffer(byte[] memoryHandle, int[] fds, long bytes) {
        check();
        DeviceMemory mapping;
        AutoCloseable owner;
        try {
            if (memoryHandle.length == IpcMemHandle.SIZE) {
                IpcMappedMemory legacy = IpcMemHandle.fromBytes(memoryHandle).open(context, bytes, true);
                mapping = legacy;
                owner = legacy;
            } else {
                if (importer == null) {
                    importer = MemoryImporter.open(context, 0);
                }
                ImportedMemory imported = importer.map(SharedMemoryDescriptor.fromBytes(memoryHandle), fds);
                if (imported.bytes() < bytes) {
                    imported.close();
                    throw new BackendException("the exported buffer has " + imported.bytes() + " bytes, " + bytes
                            + " expected");
                }
                mapping = imported;
                owner = imported;
            }
        } catch (CudaException e) {
            throw failed("opening shared memory on " + context.device(), e);
        } catch (IllegalArgumentException e) {
            throw new BackendException("opening shared memory on " + context.device() + " failed: "
                    + e.getMessage(), e);
        }
        CudaPeerBuffer buffer = new CudaPeerBuffer(this, mapping, owner);
        opened.add(buffer);
        return buffer;
    }

    @Override
    public CudaPeerEvent openEvent(byte[] eventHandle) {
        check();
        try {
            CudaPeerEvent event = new CudaPeerEvent(this, IpcEventHandle.fromBytes(eventHandle).open(context));
            opened.add(event);
            return event;
        } catch (CudaException e) {
            throw failed("opening an IPC event handle on " + context.device(), e);
        }
    }

    @Override
    public void streamWait(Backend.PeerEvent event) {
        check();
        try {
            stream.waitEvent(own(event));
        } catch (CudaException e) {
            throw failed("waiting for an event", e);
        }
    }

    @Override
    public void useCounters(MemorySegment shared, long[] offsets) {
        check();
        try {
            counterMemory = HostRegistration.register(context, shared);
        } catch (CudaException e) {
            throw failed("registering the group's shared memory for the device", e);
        }
        counters = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            counters[i] = counterMemory.devicePointer(offsets[i]);
        }
    }

    @Override
    public void waitCounter(int index, int value) {
        check();
        try {
            stream.waitValue32(counters[index], value, false);
        } catch (CudaException e) {
            throw failed("waiting for counter " + index, e);
        }
    }

    @Override
    public void writeCounter(int index, int value) {
        check();
        try {
            stream.writeValue32(counters[index], value);
        } catch (CudaException e) {
            throw failed("writing counter " + index, e);
        }
    }

    @Override
    public void fill(Backend.PeerBuffer buffer, byte value) {
        check();
        CudaPeerBuffer b = own(buffer);
        try {
            kernels.fill(fill, b.mapping().address(), b.bytes(), value, stream);
        } catch (CudaException e) {
            throw failed("filling " + b.bytes() + " bytes", e);
        }
    }

    @Override
    public void record(Backend.PeerEvent event) {
        check();
        try {
            own(event).record(stream);
        } catch (CudaException e) {
            throw failed("recording an event", e);
        }
    }

    @Override
    public MemorySegment copyToHost(Backend.PeerBuffer buffer) {
        check();
        CudaPeerBuffer b = own(buffer);
        try {
            if (host == null || host.byteSize() < b.bytes()) {
                PinnedArena old = hostArena;
                hostArena = null;
                host = null;
                Closeables.closeAll(old);
                hostArena = PinnedArena.open(context);
                host = hostArena.allocate(b.bytes());
            }
            MemorySegment view = host.asSlice(0, b.bytes());
            b.mapping().copyToAsync(0, view, stream);
            stream.synchronize();
            return view;
        } catch (CudaException e) {
            throw failed("copying " + b.bytes() + " bytes to the host", e);
        }
    }

    /**
     * Counts, on the device, the bytes of {@code buffer} that differ from {@code expected}, after all work enqueued
     * so far.
     *
     * @return the count and the first bad offset ({@code -1} when every byte matches)
     */
    public MismatchCount countMismatchesOnDevice(Backend.PeerBuffer buffer, byte expected) {
        check();
        CudaPeerBuffer b = own(buffer);
        try {
            return kernels.countMismatches(b.mapping().address(), b.bytes(), expected, stream);
        } catch (CudaException e) {
            throw failed("counting mismatches in " + b.bytes() + " bytes", e);
        }
    }

    private CudaPeerBuffer own(Backend.PeerBuffer buffer) {
        if (buffer instanceof CudaPeerBuffer b && b.attachment() == this) {
            return b;
        }
        throw new IllegalArgumentException("not a buffer opened by this CUDA attachment: " + buffer);
    }

    private Event own(Backend.PeerEvent event) {
        if (event instanceof CudaPeerEvent e && e.attachment() == this) {
            return e.event();
        }
        throw new IllegalArgumentException("not an event opened by this CUDA attachment: " + event);
    }

    @Override
    public long mark() {
        check();
        try {
            if (markers == null) {
                markers = new Event[MARKERS];
                for (int i = 0; i < MARKERS; i++) {
                    markers[i] = Event.create(context, EventFlag.DISABLE_TIMING);
                }
            }
            long marker = nextMarker++;
            markers[(int) (marker % MARKERS)].record(stream);
            return marker;
        } catch (CudaException e) {
            throw failed("recording a progress marker", e);
        }
    }

    @Override
    public boolean reached(long marker) {
        check();
        if (marker < 0 || marker >= nextMarker) {
            throw new IllegalArgumentException("no progress marker " + marker + " (" + nextMarker + " recorded)");
        }
        if (marker < nextMarker - MARKERS) {
            return true; // its event was recorded again since: the later record implies this one passed
        }
        try {
            return markers[(int) (marker % MARKERS)].query();
        } catch (CudaException e) {
            throw failed("querying a progress marker", e);
        }
    }

    @Override
    public void releaseOpened() {
        check();
        try {
            stream.synchronize();
        } catch (CudaException e) {
            throw failed("waiting for the stream before closing what was opened", e);
        }
        closeOpened();
    }

    /**
     * Closes opened buffers and events (newest first), then the host buffer, kernels, stream and context.
     * Idempotent; from the owner thread only.
     */
    @Override
    public void close() {
        close(context::close);
    }

    /** As {@link #close()}, leaving the primary context to the process's exit ({@link Context#closeBeforeExit}). */
    @Override
    public void closeBeforeExit() {
        close(context::closeBeforeExit);
    }

    private void close(AutoCloseable closeContext) {
        if (closed) {
            return;
        }
        requireOwner();
        closed = true;
        Closeables.closeAll(this::closeOpened, importer, this::closeHost, this::closeMarkers, kernels, stream,
                counterMemory, closeContext);
    }

    /** Closes the buffers and events opened through this attachment, newest first. */
    private void closeOpened() {
        List<AutoCloseable> order = new ArrayList<>(opened.reversed());
        opened.clear();
        Closeables.closeAll(order.toArray(AutoCloseable[]::new));
        // Unused mappings are not kept (the importer's bound is 0): the exporter may free from here on.
    }

    private void closeHost() {
        Closeables.closeAll(hostArena);
    }

    private void closeMarkers() {
        if (markers != null) {
            Closeables.closeAll(markers);
        }
    }
}
