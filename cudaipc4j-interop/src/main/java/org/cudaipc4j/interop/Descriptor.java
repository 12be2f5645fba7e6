package org.cudaipc4j.interop;

import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * The language-neutral description of one shared allocation (and optionally the tensor in it): the JSON descriptor
 * of format 1.0 ({@code docs/interop-format.md}), read and written by {@link DescriptorJson}. An immutable value,
 * checked when made: every field the format requires for the kind is there and of the right size.
 *
 * @param kind         how the memory travels
 * @param deviceUuid   the exporter's GPU; null only for {@link Kind#TORCH}
 * @param bytes        the size an importer maps (for torch, the storage's size)
 * @param exporter     who exported it
 * @param ipcHandle    {@link Kind#LEGACY}: the 64-byte {@code CUipcMemHandle}; else null
 * @param handleType   {@link Kind#VMM}, {@link Kind#POOL}: which shareable handle; else null
 * @param fabricHandle {@link HandleType#FABRIC}: the 64-byte fabric handle; else null
 * @param fds          {@link HandleType#POSIX_FD}: how many file descriptors travel beside (1 for our exports); else 0
 * @param fdNumbers    optional: the exporter's own descriptor numbers, for {@code pidfd_getfd}; else null
 * @param poolId       {@link Kind#POOL}: the exporter's pool; else -1
 * @param pointerExport {@link Kind#POOL}: the 64-byte {@code CUmemPoolPtrExportData}; else null
 * @param torch        {@link Kind#TORCH}: torch's own sharing fields; else null
 * @param tensor       optional tensor over the memory
 * @param event        optional event to wait on before reading
 */
public record Descriptor(Kind kind, UUID deviceUuid, long bytes, Exporter exporter, byte[] ipcHandle,
        HandleType handleType, byte[] fabricHandle, int fds, int[] fdNumbers, long poolId, byte[] pointerExport,
        Torch torch, TensorLayout tensor, Event event) {

    /** The format this code writes. */
    public static final int MAJOR = 1;
    public static final int MINOR = 0;
    /** The most file descriptors one descriptor's message carries ({@code SCM_MAX_FD}). */
    public static final int MAX_FDS = 253;
    /** The version string written, {@code "1.0"}. */
    public static final String VERSION = MAJOR + "." + MINOR;

    /** How the memory travels; {@link #code()} is the JSON string. */
    public enum Kind {
        /** A {@code cuIpcGetMemHandle} handle of {@code cuMemAlloc} memory. */
        LEGACY("legacy"),
        /** A VMM allocation's shareable handle ({@code cuMemExportToShareableHandle}). */
        VMM("vmm"),
        /** An allocation of an exported memory pool: the pool's shareable handle and the pointer's export data. */
        POOL("pool"),
        /** A torch share: the fields of {@code storage._share_cuda_()}. */
        TORCH("torch");

        private final String code;

        Kind(String code) {
            this.code = code;
        }

        /** {@return the kind's JSON string, e.g. {@code "legacy"}} */
        public String code() {
            return code;
        }
    }

    /** The shareable handle of a VMM or pool export; {@link #code()} is the JSON string. */
    public enum HandleType {
        /** A file descriptor ({@code CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR}). */
        POSIX_FD("posix_fd"),
        /** A 64-byte fabric handle ({@code CU_MEM_HANDLE_TYPE_FABRIC}). */
        FABRIC("fabric");

        private final String code;

        HandleType(String code) {
            this.code = code;
        }

        /** {@return the handle type's JSON string, e.g. {@code "posix_fd"}} */
        public String code() {
            return code;
        }
    }

    /**
     * Who exported the memory.
     *
     * @param pid          the exporter's pid (in its PID namespace)
     * @param pidNamespace the inode of the exporter's {@code /proc/<pid>/ns/pid}, 0 when unknown
     * @param exportId     unique per exporter process: the key for leases
     * @param holders      the name of the exporter's holder table in {@code /dev/shm}, or null
     */
    public record Exporter(long pid, long pidNamespace, long exportId, String holders) {
        /**
         * An exporter without a holder table.
         *
         * @param pid the exporter's pid (in its PID namespace)
         * @param pidNamespace the inode of the exporter's PID namespace, 0 when unknown
         * @param exportId unique per exporter process
         */
        public Exporter(long pid, long pidNamespace, long exportId) {
            this(pid, pidNamespace, exportId, null);
        }

        /**
         * Checks the pid, the namespace and the export id.
         *
         * @throws IllegalArgumentException naming the field out of range, or a holder table's name not of
         *                                  {@link SharedNames#HOLDERS}
         */
        public Exporter {
            if (pid < 1 || pid > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("descriptor: exporter.pid must be 1 to 2147483647, got " + pid);
            }
            if (pidNamespace < 0) {
                throw new IllegalArgumentException("descriptor: exporter.pid_namespace must be >= 0, got "
                        + pidNamespace);
            }
            if (exportId < 0) {
                throw new IllegalArgumentException("descriptor: exporter.export_id must be >= 0, got " + exportId);
            }
            if (holders != null) {
                SharedNames.checkHolders(holders);
            }
        }
    }

    /**
     * An interprocess event (JSON {@code event}).
     *
     * @param ipcHandle    the 64-byte {@code CUipcEventHandle}
     * @param waitRequired JSON {@code wait}: the reader's stream waits on the event before reading
     */
    public record Event(byte[] ipcHandle, boolean waitRequired) {
        /**
         * Checks and copies the handle.
         *
         * @throws IllegalArgumentException when the handle is missing or not 64 bytes
         */
        public Event {
            ipcHandle = sized(ipcHandle, "event.ipc_handle");
        }

        /** {@return a copy of the 64-byte {@code CUipcEventHandle}} */
        @Override
        public byte[] ipcHandle() {
            return ipcHandle.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Event e && Arrays.equals(e.ipcHandle, ipcHandle) && e.waitRequired == waitRequired;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ipcHandle) * 31 + Boolean.hashCode(waitRequired);
        }
    }

    /**
     * torch's own sharing fields ({@code storage._share_cuda_()}); the event travels in {@link Descriptor#event()}.
     *
     * @param handle             torch's handle bytes, any version; null for an empty storage
     * @param storageBytes       the storage's size
     * @param storageOffsetBytes the storage's offset in the memory the handle maps
     * @param refCounterFile     the counter file's name, null for an empty storage
     * @param refCounterOffset   the slot, -1 (JSON null) for an empty storage
     * @param deviceIndex        torch's ordinal in the producer, informative only
     */
    public record Torch(byte[] handle, long storageBytes, long storageOffsetBytes, String refCounterFile,
            long refCounterOffset, int deviceIndex) {
        /**
         * Checks the fields and copies the handle.
         *
         * @throws IllegalArgumentException naming the field that does not fit an empty or a shared storage, or a
         *                                  counter file's name not of {@link SharedNames#REF_COUNTER_FILE}
         */
        public Torch {
            if (storageBytes < 0 || storageOffsetBytes < 0 || deviceIndex < 0) {
                throw new IllegalArgumentException("descriptor: torch sizes, offset and device_index must be >= 0");
            }
            if (handle == null) {
                if (refCounterFile != null || refCounterOffset != -1) {
                    throw new IllegalArgumentException("descriptor: torch.handle is null (an empty storage), so"
                            + " ref_counter_file and ref_counter_offset must be null too");
                }
            } else {
                if (handle.length == 0) {
                    throw new IllegalArgumentException("descriptor: torch.handle is empty; an empty storage has"
                            + " null");
                }
                handle = handle.clone();
                if (refCounterFile == null || refCounterOffset < 0) {
                    throw new IllegalArgumentException("descriptor: torch with a handle needs ref_counter_file and a"
                            + " ref_counter_offset >= 0");
                }
                SharedNames.checkRefCounterFile(refCounterFile);
            }
        }

        /** {@return a copy of torch's handle bytes, or null for an empty storage} */
        @Override
        public byte[] handle() {
            return handle == null ? null : handle.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Torch t && Arrays.equals(t.handle, handle) && t.storageBytes == storageBytes
                    && t.storageOffsetBytes == storageOffsetBytes && Objects.equals(t.refCounterFile, refCounterFile)
                    && t.refCounterOffset == refCounterOffset && t.deviceIndex == deviceIndex;
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(handle), storageBytes, storageOffsetBytes, refCounterFile);
        }
    }

    /**
     * Checks that the fields fit the kind and copies the arrays.
     *
     * @throws IllegalArgumentException naming the field that does not fit the kind
     */
    public Descriptor {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(exporter, "exporter");
        if (deviceUuid == null && kind != Kind.TORCH) {
            throw new IllegalArgumentException("descriptor: device_uuid is required for kind " + kind.code);
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("descriptor: bytes must be >= 0, got " + bytes);
        }
        switch (kind) {
            case LEGACY -> {
                ipcHandle = sized(ipcHandle, "ipc_handle");
                none(handleType, fabricHandle, fds, poolId, pointerExport, torch, kind);
            }
            case VMM, POOL -> {
                if (ipcHandle != null || torch != null) {
                    throw new IllegalArgumentException("descriptor: kind " + kind.code + " has no ipc_handle or"
                            + " torch");
                }
                if (handleType == null) {
                    throw new IllegalArgumentException("descriptor: handle_type is required for kind " + kind.code);
                }
                if (handleType == HandleType.FABRIC) {
                    fabricHandle = sized(fabricHandle, "fabric_handle");
                    if (fds != 0 || fdNumbers != null) {
                        throw new IllegalArgumentException("descriptor: a fabric handle travels without fds");
                    }
                } else {
                    if (fabricHandle != null) {
                        throw new IllegalArgumentException("descriptor: fabric_handle with handle_type posix_fd");
                    }
                    if (fds < 1 || fds > MAX_FDS) {
                        throw new IllegalArgumentException("descriptor: fds must be 1 to " + MAX_FDS
                                + " for handle_type posix_fd, got " + fds);
                    }
                }
                if (fdNumbers != null) {
                    if (fdNumbers.length != fds) {
                        throw new IllegalArgumentException("descriptor: fd_numbers has " + fdNumbers.length
                                + " entries for " + fds + " fds");
                    }
                    for (int fd : fdNumbers) {
                        if (fd < 0) {
                            throw new IllegalArgumentException("descriptor: fd_numbers holds a negative " + fd);
                        }
                    }
                    fdNumbers = fdNumbers.clone();
                }
                if (kind == Kind.POOL) {
                    if (poolId < 0) {
                        throw new IllegalArgumentException("descriptor: pool_id is required (>= 0) for kind pool");
                    }
                    pointerExport = sized(pointerExport, "pointer_export");
                } else if (poolId != -1 || pointerExport != null) {
                    throw new IllegalArgumentException("descriptor: kind vmm has no pool_id or pointer_export");
                }
            }
            case TORCH -> {
                if (torch == null) {
                    throw new IllegalArgumentException("descriptor: the torch object is required for kind torch");
                }
                none(handleType, fabricHandle, fds, poolId, pointerExport, null, kind);
                if (ipcHandle != null) {
                    throw new IllegalArgumentException("descriptor: kind torch carries its handle in torch.handle");
                }
                if (bytes != torch.storageBytes()) {
                    throw new IllegalArgumentException("descriptor: bytes " + bytes + " differs from"
                            + " torch.storage_bytes " + torch.storageBytes());
                }
            }
        }
        if (kind != Kind.VMM && kind != Kind.POOL && fdNumbers != null) {
            throw new IllegalArgumentException("descriptor: fd_numbers belongs to kinds vmm and pool");
        }
        if (tensor != null && tensor.extentBytes() > bytes) {
            throw new IllegalArgumentException("descriptor: tensor " + tensor + " reaches " + tensor.extentBytes()
                    + " bytes, beyond the " + bytes + " described");
        }
    }

    private static void none(HandleType handleType, byte[] fabricHandle, int fds, long poolId, byte[] pointerExport,
            Torch torch, Kind kind) {
        if (handleType != null || fabricHandle != null || fds != 0 || poolId != -1 || pointerExport != null
                || torch != null) {
            throw new IllegalArgumentException("descriptor: kind " + kind.code + " has no handle_type, fabric_handle,"
                    + " fds, pool_id, pointer_export" + (kind == Kind.TORCH ? "" : " or torch"));
        }
    }

    static byte[] sized(byte[] b, String field) {
        if (b == null) {
            throw new IllegalArgumentException("descriptor: " + field + " is required");
        }
        if (b.length != 64) {
            throw new IllegalArgumentException("descriptor: " + field + " must be 64 bytes (128 hex digits), got "
                    + b.length);
        }
        return b.clone();
    }

    /**
     * {@return a legacy-IPC export}
     *
     * @param device the GPU's UUID
     * @param bytes the allocation's size
     * @param exporter who exported it
     * @param ipcHandle the 64-byte {@code CUipcMemHandle}
     */
    public static Descriptor legacy(UUID device, long bytes, Exporter exporter, byte[] ipcHandle) {
        return new Descriptor(Kind.LEGACY, device, bytes, exporter, ipcHandle, null, null, 0, null, -1, null, null,
                null, null);
    }

    /**
     * {@return a VMM export through one file descriptor}
     *
     * @param device the GPU's UUID
     * @param bytes the allocation's size
     * @param exporter who exported it
     */
    public static Descriptor vmmFd(UUID device, long bytes, Exporter exporter) {
        return new Descriptor(Kind.VMM, device, bytes, exporter, null, HandleType.POSIX_FD, null, 1, null, -1, null,
                null, null, null);
    }

    /**
     * {@return a VMM export through a fabric handle}
     *
     * @param device the GPU's UUID
     * @param bytes the allocation's size
     * @param exporter who exported it
     * @param fabricHandle the 64-byte {@code CUmemFabricHandle}
     */
    public static Descriptor vmmFabric(UUID device, long bytes, Exporter exporter, byte[] fabricHandle) {
        return new Descriptor(Kind.VMM, device, bytes, exporter, null, HandleType.FABRIC, fabricHandle, 0, null, -1,
                null, null, null, null);
    }

    /**
     * {@return a memory-pool allocation: the pool through one file descriptor, the pointer's export data}
     *
     * @param device the GPU's UUID
     * @param bytes the allocation's size
     * @param exporter who exported it
     * @param poolId the pool's id, unique per exporter
     * @param pointerExport the pointer's {@code CUmemPoolPtrExportData}
     */
    public static Descriptor poolFd(UUID device, long bytes, Exporter exporter, long poolId, byte[] pointerExport) {
        return new Descriptor(Kind.POOL, device, bytes, exporter, null, HandleType.POSIX_FD, null, 1, null, poolId,
                pointerExport, null, null, null);
    }

    /**
     * {@return a memory-pool allocation: the pool through its fabric handle, the pointer's export data}
     *
     * @param device the GPU's UUID
     * @param bytes the allocation's size
     * @param exporter who exported it
     * @param poolId the pool's id, unique per exporter
     * @param fabricHandle the pool's 64-byte {@code CUmemFabricHandle}
     * @param pointerExport the pointer's {@code CUmemPoolPtrExportData}
     */
    public static Descriptor poolFabric(UUID device, long bytes, Exporter exporter, long poolId, byte[] fabricHandle,
            byte[] pointerExport) {
        return new Descriptor(Kind.POOL, device, bytes, exporter, null, HandleType.FABRIC, fabricHandle, 0, null,
                poolId, pointerExport, null, null, null);
    }

    /**
     * {@return a torch share; {@code device} may be null (torch's tuple carries only an ordinal)}
     *
     * @param device the GPU's UUID, or null
     * @param exporter who shared it
     * @param torch torch's sharing fields
     */
    public static Descriptor torch(UUID device, Exporter exporter, Torch torch) {
        return new Descriptor(Kind.TORCH, device, torch.storageBytes(), exporter, null, null, null, 0, null, -1, null,
                torch, null, null);
    }

    /**
     * {@return the same with {@code layout} as its tensor}
     *
     * @param layout the tensor's layout
     */
    public Descriptor withTensor(TensorLayout layout) {
        return new Descriptor(kind, deviceUuid, bytes, exporter, ipcHandle, handleType, fabricHandle, fds, fdNumbers,
                poolId, pointerExport, torch, layout, event);
    }

    /**
     * {@return the same with event {@code e}}
     *
     * @param e the event
     */
    public Descriptor withEvent(Event e) {
        return new Descriptor(kind, deviceUuid, bytes, exporter, ipcHandle, handleType, fabricHandle, fds, fdNumbers,
                poolId, pointerExport, torch, tensor, e);
    }

    /**
     * {@return the same with the exporter's fd numbers (for {@code pidfd_getfd})}
     *
     * @param numbers the exporter's descriptor numbers
     */
    public Descriptor withFdNumbers(int... numbers) {
        return new Descriptor(kind, deviceUuid, bytes, exporter, ipcHandle, handleType, fabricHandle, fds, numbers,
                poolId, pointerExport, torch, tensor, event);
    }

    /**
     * {@return the same with {@code name} as the exporter's holder table, in which importers sign in under the export
     * id (docs/interop-format.md, "The holder table")}
     *
     * @param name the table's name ({@code ExportHolders.name()} of {@code cudaipc4j-coord}), or null for none
     */
    public Descriptor withHolders(String name) {
        return new Descriptor(kind, deviceUuid, bytes, new Exporter(exporter.pid(), exporter.pidNamespace(),
                exporter.exportId(), name), ipcHandle, handleType, fabricHandle, fds, fdNumbers, poolId, pointerExport,
                torch, tensor, event);
    }

    /** {@return a copy of the legacy IPC handle, or null} */
    @Override
    public byte[] ipcHandle() {
        return ipcHandle == null ? null : ipcHandle.clone();
    }

    /** {@return a copy of the fabric handle, or null} */
    @Override
    public byte[] fabricHandle() {
        return fabricHandle == null ? null : fabricHandle.clone();
    }

    /** {@return a copy of the exporter's descriptor numbers, or null} */
    @Override
    public int[] fdNumbers() {
        return fdNumbers == null ? null : fdNumbers.clone();
    }

    /** {@return a copy of the pool pointer's export data, or null} */
    @Override
    public byte[] pointerExport() {
        return pointerExport == null ? null : pointerExport.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Descriptor d && d.kind == kind && Objects.equals(d.deviceUuid, deviceUuid)
                && d.bytes == bytes && d.exporter.equals(exporter) && Arrays.equals(d.ipcHandle, ipcHandle)
                && d.handleType == handleType && Arrays.equals(d.fabricHandle, fabricHandle) && d.fds == fds
                && Arrays.equals(d.fdNumbers, fdNumbers) && d.poolId == poolId
                && Arrays.equals(d.pointerExport, pointerExport) && Objects.equals(d.torch, torch)
                && Objects.equals(d.tensor, tensor) && Objects.equals(d.event, event);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, deviceUuid, bytes, exporter, torch, tensor);
    }

    @Override
    public String toString() {
        return DescriptorJson.toJson(this);
    }
}
