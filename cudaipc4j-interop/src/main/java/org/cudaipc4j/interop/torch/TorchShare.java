package org.cudaipc4j.interop.torch;

import org.cudaipc4j.interop.TorchHandle;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.TensorLayout;

/**
 * What torch hands another process for one CUDA tensor: the eight fields of {@code storage._share_cuda_()}
 * ({@code torch/csrc/StorageSharing.cpp}, {@code THPStorage_shareCuda}: device, handle, storage size in bytes,
 * storage offset in bytes, reference-counter file, reference-counter offset, event handle, event sync required)
 * and the tensor's metadata that {@code torch/multiprocessing/reductions.py}'s {@code reduce_tensor} sends beside
 * them (dtype, shape, strides, offset in elements). An empty storage has no handle, counter or event.
 * An immutable value, checked when made.
 *
 * @param deviceIndex        torch's ordinal in the producer (informative: the reader resolves the device by UUID
 *                           or takes it from its caller)
 * @param handle             the storage's handle, null for an empty storage
 * @param storageBytes       the storage's size
 * @param storageOffsetBytes where the storage starts in the memory the handle maps ({@code 'c'}: from the caching
 *                           allocator's segment base; {@code 'e'}: from the first shared chunk)
 * @param refCounterFile     the POSIX shared-memory name of the producer's counter file, e.g.
 *                           {@code /torch_459_1234567_0}; null for an empty storage
 * @param refCounterSlot     the slot in it (torch's {@code ref_counter_offset}); -1 for an empty storage
 * @param eventHandle        the 64-byte {@code cudaIpcEventHandle_t} recorded at share time, or null
 * @param eventSyncRequired  whether the reader's stream must wait on the event before reading
 * @param tensor             dtype, shape, strides and element offset; null when only the storage is shared
 */
public record TorchShare(int deviceIndex, TorchHandle handle, long storageBytes, long storageOffsetBytes,
        String refCounterFile, long refCounterSlot, byte[] eventHandle, boolean eventSyncRequired,
        TensorLayout tensor) {

    /**
     * Checks the fields as torch sends them and copies the event handle.
     *
     * @throws IllegalArgumentException naming the field that torch would never send so
     */
    public TorchShare {
        if (deviceIndex < 0) {
            throw new IllegalArgumentException("torch share: device index " + deviceIndex + " is negative");
        }
        if (storageBytes < 0) {
            throw new IllegalArgumentException("torch share: storage size " + storageBytes + " is negative");
        }
        if (storageOffsetBytes < 0) {
            throw new IllegalArgumentException("torch share: storage offset " + storageOffsetBytes + " is negative");
        }
        if (handle == null) {
            if (refCounterFile != null || refCounterSlot != -1 || eventHandle != null) {
                throw new IllegalArgumentException("torch share: an empty storage (no handle) has no reference"
                        + " counter and no event");
            }
        } else {
            if (refCounterFile == null) {
                throw new IllegalArgumentException("torch share: a storage with a handle needs its reference-counter"
                        + " file");
            }
            TorchCounterFile.checkName(refCounterFile);
            if (refCounterSlot < 0 || refCounterSlot >= TorchCounterFile.SLOTS) {
                throw new IllegalArgumentException("torch share: reference-counter slot " + refCounterSlot
                        + " is outside 0.." + (TorchCounterFile.SLOTS - 1));
            }
            if (handle.type() == TorchHandle.Type.EXPANDABLE_SEGMENT
                    && storageOffsetBytes + storageBytes > handle.mappedBytes()) {
                throw new IllegalArgumentException("torch share: storage of " + storageBytes + " bytes at offset "
                        + storageOffsetBytes + " ends beyond the " + handle.mappedBytes() + " bytes its "
                        + handle.chunkCount() + " chunks map");
            }
        }
        if (eventHandle != null) {
            if (eventHandle.length != 64) {
                throw new IllegalArgumentException("torch share: event handle must be 64 bytes, got "
                        + eventHandle.length);
            }
            eventHandle = eventHandle.clone();
        } else if (eventSyncRequired) {
            throw new IllegalArgumentException("torch share: event sync required but no event handle");
        }
        if (tensor != null && tensor.extentBytes() > storageBytes) {
            throw new IllegalArgumentException("torch share: tensor " + tensor + " reaches " + tensor.extentBytes()
                    + " bytes, beyond its storage of " + storageBytes);
        }
    }

    /**
     * {@return the share a {@code torch} descriptor carries (its event becomes torch's event fields)}
     *
     * @param d a {@code torch} descriptor
     * @throws IllegalArgumentException for another kind, or torch fields that do not parse
     */
    public static TorchShare of(Descriptor d) {
        if (d.kind() != Descriptor.Kind.TORCH) {
            throw new IllegalArgumentException("not a torch descriptor: kind " + d.kind().code());
        }
        Descriptor.Torch t = d.torch();
        return new TorchShare(t.deviceIndex(), t.handle() == null ? null : TorchHandle.parse(t.handle()),
                t.storageBytes(), t.storageOffsetBytes(), t.refCounterFile(), t.refCounterOffset(),
                d.event() == null ? null : d.event().ipcHandle(), d.event() != null && d.event().waitRequired(),
                d.tensor());
    }

    /**
     * {@return this share as a {@code torch} descriptor; {@code device} may be null (torch's tuple has only an
     * ordinal)} The event travels only when the reader must wait on it: without the flag torch's event bytes mean
     * nothing.
     *
     * @param device the GPU's UUID, or null
     * @param exporter the producer
     */
    public Descriptor toDescriptor(UUID device, Descriptor.Exporter exporter) {
        Descriptor d = Descriptor.torch(device, exporter, new Descriptor.Torch(handle == null ? null : handle.bytes(),
                storageBytes, storageOffsetBytes, refCounterFile, refCounterSlot, deviceIndex));
        if (tensor != null) {
            d = d.withTensor(tensor);
        }
        return eventHandle == null || !eventSyncRequired ? d : d.withEvent(new Descriptor.Event(eventHandle, eventSyncRequired));
    }

    /** {@return true for an empty storage: nothing to map, nothing to release} */
    public boolean isEmpty() {
        return handle == null;
    }

    /** {@return a copy of the event handle, or null} */
    @Override
    public byte[] eventHandle() {
        return eventHandle == null ? null : eventHandle.clone();
    }

    /**
     * {@return the same share with another tensor layout over its storage}
     *
     * @param layout the new layout
     */
    public TorchShare withTensor(TensorLayout layout) {
        return new TorchShare(deviceIndex, handle, storageBytes, storageOffsetBytes, refCounterFile, refCounterSlot,
                eventHandle, eventSyncRequired, layout);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TorchShare s && s.deviceIndex == deviceIndex && Objects.equals(s.handle, handle)
                && s.storageBytes == storageBytes && s.storageOffsetBytes == storageOffsetBytes
                && Objects.equals(s.refCounterFile, refCounterFile) && s.refCounterSlot == refCounterSlot
                && Arrays.equals(s.eventHandle, eventHandle) && s.eventSyncRequired == eventSyncRequired
                && Objects.equals(s.tensor, tensor);
    }

    @Override
    public int hashCode() {
        return Objects.hash(handle, storageBytes, storageOffsetBytes, refCounterFile, refCounterSlot);
    }

    @Override
    public String toString() {
        if (handle == null) {
            return "torch share of an empty storage" + (tensor != null ? " (" + tensor + ")" : "");
        }
        return "torch share of " + storageBytes + " bytes at offset " + storageOffsetBytes + " (" + handle.describe()
                + "; counter " + refCounterFile + " slot " + refCounterSlot
                + (eventHandle != null ? "; event " + HexFormat.of().formatHex(eventHandle, 0, 4) + "..."
                + (eventSyncRequired ? " (wait)" : "") : "") + (tensor != null ? "; " + tensor : "") + ")";
    }
}
