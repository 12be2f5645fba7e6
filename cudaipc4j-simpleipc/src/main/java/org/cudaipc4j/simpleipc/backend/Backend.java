package org.cudaipc4j.simpleipc.backend;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where the simpleIPC workload runs: real GPUs through the CUDA driver ({@code cuda}), or devices simulated in
 * host shared memory ({@code host}). The application (parent and children) is written once against this
 * interface; a backend owns every native resource it hands out.
 *
 * <p>Roles follow the sample: the parent {@linkplain #selectDevices selects devices} and
 * {@linkplain #export allocates and exports} one buffer and one interprocess event per process; each child
 * {@linkplain #attach attaches} to its device and opens every sibling's handles.
 */
public interface Backend extends AutoCloseable {

    /** {@code "cuda"} or {@code "host"}. */
    String name();

    /** True when devices are simulated (output must say so). */
    boolean simulated();

    /**
     * Parent: enumerates devices and keeps those that can take part, printing the sample's messages
     * ({@code Device %d does not support unified addressing, skipping...}, ...) through {@code log}.
     *
     * @param requested device ordinals to consider, in order; empty means all devices
     * @return the selected ordinals, in order, at most {@code maxDevices}; never empty
     * @throws NoIpcDeviceException when no device qualifies
     */
    List<Integer> selectDevices(List<Integer> requested, int maxDevices, Consumer<String> log);

    /**
     * Parent: makes the selected devices usable and enables peer access between every pair (reserving peer
     * slots as the sample does). Called once, after {@link #selectDevices}.
     */
    void prepareDevices(List<Integer> selected);

    /**
     * Parent: allocates {@code bytes} of device memory on {@code device} of the kind {@code mode} shares, and an
     * interprocess event (disable-timing | interprocess), and exports both. The returned export owns them.
     */
    Export export(int device, long bytes, IpcMode mode);

    /** As {@link #export(int, long, IpcMode)} with legacy handles. */
    default Export export(int device, long bytes) {
        return export(device, bytes, IpcMode.LEGACY);
    }

    /** Parent: why {@code mode} cannot share memory of {@code device}, empty when it can. */
    default java.util.Optional<String> unsupported(int device, IpcMode mode) {
        return java.util.Optional.empty();
    }

    /**
     * Child: starts the driver now ({@code cuInit}), before the device is known, so that this slow step overlaps
     * the child's other start-up work. Optional: {@link #attach} starts it too. Idempotent.
     */
    default void startDriver() {}

    /**
     * Parent: the UUID of a selected device, by which a child finds it whatever its own numbering
     * ({@code CUDA_VISIBLE_DEVICES} may differ between processes).
     */
    java.util.UUID deviceUuid(int ordinal);

    /** Child: binds the calling thread to the device with {@code uuid} and creates the child's stream and kernel. */
    Attachment attach(java.util.UUID uuid);

    /** As {@link #attach(java.util.UUID)} for the device this process numbers {@code ordinal}. */
    default Attachment attach(int ordinal) {
        return attach(deviceUuid(ordinal));
    }

    /** Releases what the backend holds (contexts, simulated devices). Idempotent. */
    @Override
    void close();

    /** One exported buffer and event, owned by the parent. */
    interface Export extends AutoCloseable {
        /** What names the memory to another process (a legacy handle, or a memory descriptor), at most 256 bytes. */
        byte[] memoryHandle();

        /** The file descriptors that must travel with {@link #memoryHandle()} (none for legacy handles); owned here. */
        default int[] memoryFds() {
            return new int[0];
        }

        /** The 64-byte event IPC handle. */
        byte[] eventHandle();

        /**
         * Destroys the event and frees the buffer; call it once every importer released them or ended. A record of
         * the event by a process that ended may never complete: the close does not wait for it (or, where a
         * backend waits, it ends the wait once the recorder is found gone). Idempotent.
         */
        @Override
        void close();
    }

    /** A child's view of its device: one non-blocking stream and the fill kernel. */
    interface Attachment extends AutoCloseable {
        /** How many recent {@linkplain #mark markers} can be asked about. */
        int MARKERS = 4;

        /**
         * Opens a sibling's (or its own) buffer from its memory handle and the file descriptors that came with it
         * (lazy peer access). The caller keeps owning the file descriptors and may close them afterwards.
         */
        PeerBuffer openBuffer(byte[] memoryHandle, int[] fds, long bytes);

        /** As {@link #openBuffer(byte[], int[], long)} for a handle that needs no file descriptor. */
        default PeerBuffer openBuffer(byte[] memoryHandle, long bytes) {
            return openBuffer(memoryHandle, new int[0], bytes);
        }

        /** Opens a sibling's (or its own) event from its event handle. */
        PeerEvent openEvent(byte[] eventHandle);

        /** Makes the stream wait for the event's most recent record at the time of this call. */
        void streamWait(PeerEvent event);

        /**
         * Orders the stream by 32-bit counters instead of events ({@code --sync counters}): the counters are the
         * ints at {@code offsets} in {@code shared}, memory every process of the group maps (whole pages). A wait on a
         * counter is released by a store from any process, so a group that aborts can free every stream at once.
         */
        void useCounters(java.lang.foreign.MemorySegment shared, long[] offsets);

        /** Makes later work on the stream wait until counter {@code index} is at least {@code value}. */
        void waitCounter(int index, int value);

        /** Enqueues setting counter {@code index} to {@code value} after the work enqueued so far. */
        void writeCounter(int index, int value);

        /** Enqueues the kernel that writes {@code value} into every byte of {@code buffer}. */
        void fill(PeerBuffer buffer, byte value);

        /** Records the event on the stream. */
        void record(PeerEvent event);

        /**
         * Copies {@code buffer} to host memory after all work enqueued so far and waits for it;
         * the returned view stays valid until the next call or {@link #close()}.
         */
        java.lang.foreign.MemorySegment copyToHost(PeerBuffer buffer);

        /**
         * Enqueues a progress marker after the work enqueued so far and returns its number (0, 1, 2, ...). With
         * {@link #reached}, a caller bounds how far it runs ahead of the device without blocking inside the
         * driver, where it could not notice that the group was aborted.
         */
        long mark();

        /**
         * True once marker {@code marker} has been passed on the device. Valid for the {@value #MARKERS} most
         * recent markers; an older one reads as passed.
         */
        boolean reached(long marker);

        /**
         * Waits for the work enqueued so far, then closes every buffer and event opened through this attachment
         * (newest first): from then on the exporter may free them. The stream stays until {@link #close()}.
         */
        void releaseOpened();

        /** Destroys the stream and what {@link #attach} created. Opened buffers and events are closed first. */
        @Override
        void close();

        /**
         * As {@link #close()} in a process that exits right after: what its exit tears down anyway may be left to
         * it, when that ends the process sooner (the CUDA backend: the device's primary context).
         */
        default void closeBeforeExit() {
            close();
        }
    }

    /** A buffer opened from a memory handle. */
    interface PeerBuffer extends AutoCloseable {
        long bytes();

        @Override
        void close();
    }

    /** An event opened from an event handle. */
    interface PeerEvent extends AutoCloseable {
        @Override
        void close();
    }
}
