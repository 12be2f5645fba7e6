package org.cudaipc4j.interop;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * The second field of torch's {@code storage._share_cuda_()}: the bytes that let another process map a CUDA
 * storage's memory, in every format torch has written. An immutable value; {@link #parse} checks everything and
 * refuses what torch never writes with an {@link IllegalArgumentException} whose message names what is wrong.
 *
 * <p>The formats, read in torch's source ({@code c10/cuda/CUDACachingAllocator.cpp}, all integers in the writer's
 * native byte order, little-endian on every platform torch ships CUDA for):
 * <ul>
 *   <li><b>raw</b> (torch up to 2.4): exactly the 64 bytes of a {@code cudaIpcMemHandle_t}. From 2.5 on,
 *       {@code MemHandleCacheEntry}'s constructor still reads a handle of exactly {@code CUDA_IPC_HANDLE_SIZE} (64)
 *       bytes as raw ("coming from an old pytorch"); a versioned handle is never 64 bytes long.</li>
 *   <li><b>versioned</b>: {@code shareIpcHandle(Block*)} writes {@code ss.put(SHAREABLE_HANDLE_VERSION)}, then the
 *       type byte of {@code enum ShareableHandleType : char} ({@code SHAREABLE_CUDA_MALLOC = 'c'},
 *       {@code SHAREABLE_CUDA_EXPANDABLE_SEGMENT = 'e'}), then the payload. {@code SHAREABLE_HANDLE_VERSION} was 1
 *       when expandable segments learned IPC (pytorch #130890, torch 2.5/2.6), 2 when they learned fabric handles
 *       (pytorch #156074, 2.8 to 2.12; 2.11 seen writing {@code 02 63}), 3 when the header learned its handle
 *       type (pytorch #179618, 2.13).</li>
 *   <li>{@code 'c'}: {@code cudaIpcGetMemHandle(&handle, base_block->ptr)} written as its 64 bytes: the handle of
 *       the caching allocator's whole segment; the storage lies {@code storage_offset_bytes} into it. Unchanged in
 *       versions 1 to 3.</li>
 *   <li>{@code 'e'}: {@code ExpandableSegment::share} writes {@code sizeof(ShareHeader)} bytes of
 *       {@code struct ShareHeader { pid_t pid; size_t segment_size; size_t num_handles; }} (24 bytes: pid, 4 bytes
 *       of padding, two 64-bit sizes), then for each chunk under the shared block either {@code sizeof(int)} bytes
 *       of the producer's own file descriptor from {@code cuMemExportToShareableHandle(..,
 *       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)} or (version 2 on, when the producer's allocator uses fabric)
 *       {@code sizeof(CUmemFabricHandle)} = 64 bytes. Through version 2 nothing on the wire says which:
 *       {@code ExpandableSegment::fromShared} trusts the reader's own allocator setting; here the header's
 *       {@code num_handles} and the payload's length decide (4 or 64 bytes per chunk; they cannot both fit, the
 *       header announcing at least one chunk). Version 3 adds {@code Expandable_Segments_Handle_Type handle_type}
 *       (an {@code int}: 0 unspecified, 1 POSIX fd, 2 fabric, {@code c10/cuda/CUDAAllocatorConfig.h}) after
 *       {@code num_handles}: a 32-byte header (4 bytes of tail padding). The padding bytes were uninitialised
 *       before pytorch #161885 and again after #179618 (pytorch #198305), so they are ignored here and never part
 *       of a key.</li>
 * </ul>
 * torch's own reader ({@code MemHandleCacheEntry}) refuses only a version above its own
 * ("received sharable handle from a future version of torch") and ends in an internal assert on an unknown type.
 */
public final class TorchHandle {
    /** {@code CUDA_IPC_HANDLE_SIZE}: a {@code cudaIpcMemHandle_t}, also the size of a {@code CUmemFabricHandle}. */
    public static final int IPC_HANDLE_BYTES = 64;
    /** The newest version this reader knows. */
    public static final int NEWEST_VERSION = 3;
    /** {@code sizeof(ShareHeader)} through version 2. */
    public static final int SHARE_HEADER_BYTES_V2 = 24;
    /** {@code sizeof(ShareHeader)} from version 3 on (the handle type and tail padding). */
    public static final int SHARE_HEADER_BYTES_V3 = 32;

    /** The handle's type byte. */
    public enum Type {
        /** {@code 'c'}, {@code SHAREABLE_CUDA_MALLOC}: a legacy IPC handle of a cudaMalloc'ed segment. */
        CUDA_MALLOC('c'),
        /** {@code 'e'}, {@code SHAREABLE_CUDA_EXPANDABLE_SEGMENT}: VMM chunks of an expandable segment. */
        EXPANDABLE_SEGMENT('e');

        private final char code;

        Type(char code) {
            this.code = code;
        }

        /** {@return the type byte, as a character} */
        public char code() {
            return code;
        }
    }

    /** How the chunks of an {@code 'e'} handle travel. */
    public enum ChunkKind {
        /** Each chunk is the producer's file descriptor number (taken with {@code pidfd_getfd}). */
        POSIX_FD(1, 4),
        /** Each chunk is a 64-byte {@code CUmemFabricHandle} (needs IMEX). */
        FABRIC(2, 64);

        private final int code;
        private final int bytes;

        ChunkKind(int code, int bytes) {
            this.code = code;
            this.bytes = bytes;
        }

        /** {@return the value of torch's {@code Expandable_Segments_Handle_Type}} */
        public int code() {
            return code;
        }

        /** {@return bytes per chunk in the handle} */
        public int bytesPerChunk() {
            return bytes;
        }
    }

    private final byte[] bytes;
    private final int version;
    private final Type type;
    private final byte[] ipcHandle;
    private final int producerPid;
    private final long segmentSize;
    private final ChunkKind chunkKind;
    private final int[] fds;
    private final List<byte[]> fabricHandles;
    /** {@link #mappingKey()}, made on first use: a reader asks for it twice per open. */
    private String mappingKey;

    private TorchHandle(byte[] bytes, int version, Type type, byte[] ipcHandle, int producerPid, long segmentSize,
            ChunkKind chunkKind, int[] fds, List<byte[]> fabricHandles) {
        this.bytes = bytes;
        this.version = version;
        this.type = type;
        this.ipcHandle = ipcHandle;
        this.producerPid = producerPid;
        this.segmentSize = segmentSize;
        this.chunkKind = chunkKind;
        this.fds = fds;
        this.fabricHandles = fabricHandles;
    }

    /**
     * Parses torch's handle bytes.
     *
     * @param handle the handle's bytes
     * @return the parsed handle
     * @throws IllegalArgumentException naming what is wrong: empty, too short or too long for its type, a version
     *                                  0 or newer than {@value #NEWEST_VERSION}, an unknown type byte, an
     *                                  {@code 'e'} header whose pid, segment size, chunk count or handle type torch
     *                                  never writes, chunks that do not fit the length
     */
    public static TorchHandle parse(byte[] handle) {
        Objects.requireNonNull(handle, "handle");
        byte[] b = handle.clone();
        if (b.length == 0) {
            throw new IllegalArgumentException("torch handle is empty (an empty storage has no handle)");
        }
        if (b.length == IPC_HANDLE_BYTES) {
            // MemHandleCacheEntry: "otherwise this is coming from an old pytorch where it has to be a raw
            // SHARABLE_CUDA_MALLOC".
            return new TorchHandle(b, 0, Type.CUDA_MALLOC, b.clone(), 0, 0, null, null, null);
        }
        if (b.length < 2) {
            throw new IllegalArgumentException("torch handle too short: " + b.length + " byte; a handle is 64 raw"
                    + " bytes or a version byte, a type byte and a payload");
        }
        int version = Byte.toUnsignedInt(b[0]);
        if (version == 0) {
            throw new IllegalArgumentException("torch handle has version 0, which torch never writes (raw handles"
                    + " are exactly 64 bytes; versioned ones start at 1); " + b.length + " bytes: " + head(b));
        }
        if (version > NEWEST_VERSION) {
            throw new IllegalArgumentException("torch handle has version " + version + ", newer than this reader"
                    + " knows (1 to " + NEWEST_VERSION + ")");
        }
        int typeByte = Byte.toUnsignedInt(b[1]);
        if (typeByte == 'c') {
            if (b.length != 2 + IPC_HANDLE_BYTES) {
                throw new IllegalArgumentException("torch handle version " + version + " type 'c' must be "
                        + (2 + IPC_HANDLE_BYTES) + " bytes (version, type, 64-byte cudaIpcMemHandle_t), got "
                        + b.length);
            }
            return new TorchHandle(b, version, Type.CUDA_MALLOC, Arrays.copyOfRange(b, 2, b.length), 0, 0, null,
                    null, null);
        }
        if (typeByte == 'e') {
            return parseExpandable(b, version);
        }
        throw new IllegalArgumentException("torch handle version " + version + " has an unknown type "
                + (typeByte >= 0x20 && typeByte < 0x7f ? "'" + (char) typeByte + "' " : "") + "(0x"
                + String.format("%02x", typeByte) + "); torch writes 'c' (cudaMalloc) and 'e' (expandable segment)");
    }

    /** {@code ExpandableSegment::share}'s payload (see the class comment). */
    private static TorchHandle parseExpandable(byte[] b, int version) {
        int header = version >= 3 ? SHARE_HEADER_BYTES_V3 : SHARE_HEADER_BYTES_V2;
        String what = "torch handle version " + version + " type 'e'";
        if (b.length < 2 + header) {
            throw new IllegalArgumentException(what + " too short: " + b.length + " bytes, its header alone is "
                    + (2 + header));
        }
        ByteBuffer in = ByteBuffer.wrap(b, 2, b.length - 2).order(ByteOrder.LITTLE_ENDIAN);
        int pid = in.getInt();
        in.getInt(); // padding after pid_t
        long segmentSize = in.getLong();
        long count = in.getLong();
        int declared = -1;
        if (version >= 3) {
            declared = in.getInt();
            in.getInt(); // tail padding
        }
        if (pid <= 0) {
            throw new IllegalArgumentException(what + " names producer pid " + pid);
        }
        if (segmentSize <= 0) {
            throw new IllegalArgumentException(what + " has a bad segment size " + Long.toUnsignedString(segmentSize));
        }
        long payload = b.length - 2 - header;
        if (count <= 0 || count > payload / 4) {
            throw new IllegalArgumentException(what + " announces " + Long.toUnsignedString(count) + " chunks but"
                    + " carries " + payload + " bytes of chunks");
        }
        try {
            Math.multiplyExact(segmentSize, count);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + ": " + count + " chunks of " + segmentSize
                    + " bytes overflow a 64-bit size");
        }
        ChunkKind kind;
        if (version >= 3 && declared != 0) {
            kind = switch (declared) {
                case 1 -> ChunkKind.POSIX_FD;
                case 2 -> ChunkKind.FABRIC;
                default -> throw new IllegalArgumentException(what + " has an unknown handle_type " + declared
                        + " (torch's are 0 unspecified, 1 POSIX fd, 2 fabric)");
            };
            if (payload != count * kind.bytesPerChunk()) {
                throw new IllegalArgumentException(what + " with handle_type " + declared + " and " + count
                        + " chunks needs " + (count * kind.bytesPerChunk()) + " bytes of chunks, got " + payload);
            }
        } else if (payload == count * 4) {
            kind = ChunkKind.POSIX_FD;
        } else if (payload == count * 64 && version >= 2) {
            kind = ChunkKind.FABRIC;
        } else {
            throw new IllegalArgumentException(what + " announces " + count + " chunks but carries " + payload
                    + " bytes of chunks: neither " + (count * 4) + " (file descriptors)"
                    + (version >= 2 ? " nor " + (count * 64) + " (fabric handles)" : ", version 1 has no fabric"));
        }
        int n = (int) count;
        if (kind == ChunkKind.POSIX_FD) {
            int[] fds = new int[n];
            for (int i = 0; i < n; i++) {
                fds[i] = in.getInt();
                if (fds[i] < 0) {
                    throw new IllegalArgumentException(what + " chunk " + i + " names file descriptor " + fds[i]);
                }
            }
            return new TorchHandle(b, version, Type.EXPANDABLE_SEGMENT, null, pid, segmentSize, kind, fds, null);
        }
        List<byte[]> fabric = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] h = new byte[64];
            in.get(h);
            fabric.add(h);
        }
        return new TorchHandle(b, version, Type.EXPANDABLE_SEGMENT, null, pid, segmentSize, kind, null,
                List.copyOf(fabric));
    }

    private static String head(byte[] b) {
        return HexFormat.ofDelimiter(" ").formatHex(b, 0, Math.min(b.length, 8)) + (b.length > 8 ? " ..." : "");
    }

    /** {@return a copy of the handle's bytes as torch wrote them} */
    public byte[] bytes() {
        return bytes.clone();
    }

    /**
     * 0 for a raw 64-byte handle, else the version byte (1 to {@value #NEWEST_VERSION}).
     *
     * @return the version
     */
    public int version() {
        return version;
    }

    /** {@return the handle's type} */
    public Type type() {
        return type;
    }

    /** {@return the 64-byte {@code cudaIpcMemHandle_t} of a {@code 'c'} (or raw) handle} */
    public byte[] ipcMemHandle() {
        requireType(Type.CUDA_MALLOC);
        return ipcHandle.clone();
    }

    /** {@return the producer's pid of an {@code 'e'} handle (in the producer's PID namespace)} */
    public int producerPid() {
        requireType(Type.EXPANDABLE_SEGMENT);
        return producerPid;
    }

    /** {@return the size of each chunk of an {@code 'e'} handle (2 MiB small pool, 20 MiB large pool as seen)} */
    public long segmentSize() {
        requireType(Type.EXPANDABLE_SEGMENT);
        return segmentSize;
    }

    /** {@return the number of chunks of an {@code 'e'} handle} */
    public int chunkCount() {
        requireType(Type.EXPANDABLE_SEGMENT);
        return fds != null ? fds.length : fabricHandles.size();
    }

    /** {@return the bytes the chunks of an {@code 'e'} handle cover: {@code chunkCount() * segmentSize()}} */
    public long mappedBytes() {
        return chunkCount() * segmentSize;
    }

    /** {@return how the chunks of an {@code 'e'} handle travel} */
    public ChunkKind chunkKind() {
        requireType(Type.EXPANDABLE_SEGMENT);
        return chunkKind;
    }

    /** {@return the producer's file descriptor numbers of a {@link ChunkKind#POSIX_FD} handle} */
    public int[] fds() {
        if (fds == null) {
            throw new IllegalStateException("this torch handle carries no file descriptors (" + describe() + ")");
        }
        return fds.clone();
    }

    /** {@return the 64-byte fabric handles of a {@link ChunkKind#FABRIC} handle} */
    public List<byte[]> fabricHandles() {
        if (fabricHandles == null) {
            throw new IllegalStateException("this torch handle carries no fabric handles (" + describe() + ")");
        }
        return fabricHandles.stream().map(byte[]::clone).toList();
    }

    /**
     * {@return what names the memory the handle maps, without the bytes torch leaves uninitialised: the 64-byte IPC
     * handle for {@code 'c'} (the same for every storage in one block of the caching allocator); for {@code 'e'} the
     * producer's pid, chunk size and chunk list} An {@code 'e'} key is only valid while the producer's block stays
     * allocated (its file descriptors can be closed and their numbers reused after), and a pid is only valid while
     * its process lives: the reader's storage key (package {@code torch}) adds the producer's start time. An opaque
     * key, compared whole: a {@code 'c'} key holds the handle's bytes one char each, not text to show.
     */
    public String mappingKey() {
        String k = mappingKey;
        if (k == null) {
            k = mappingKey = makeMappingKey(); // immutable and always the same: a racing second make is harmless
        }
        return k;
    }

    private String makeMappingKey() {
        if (type == Type.CUDA_MALLOC) {
            // The bytes as they are, one char each (no hex): a key, made for each of a state dict's shares.
            return "c:" + new String(ipcHandle, StandardCharsets.ISO_8859_1);
        }
        HexFormat hex = HexFormat.of();
        StringBuilder s = new StringBuilder("e:").append(producerPid).append(':').append(segmentSize).append(':')
                .append(chunkKind == ChunkKind.POSIX_FD ? "fd" : "fabric");
        if (fds != null) {
            for (int fd : fds) {
                s.append(':').append(fd);
            }
        } else {
            for (byte[] h : fabricHandles) {
                s.append(':').append(hex.formatHex(h));
            }
        }
        return s.toString();
    }

    /** {@return one line: format, version, type and what the payload says} */
    public String describe() {
        String v = version == 0 ? "raw (torch <= 2.4)" : "version " + version;
        if (type == Type.CUDA_MALLOC) {
            return "torch handle " + v + " type 'c': cudaIpcMemHandle_t "
                    + HexFormat.of().formatHex(ipcHandle, 0, 8) + "...";
        }
        return "torch handle " + v + " type 'e': producer pid " + producerPid + ", " + chunkCount() + " chunk"
                + (chunkCount() == 1 ? "" : "s") + " of " + segmentSize + " bytes as "
                + (chunkKind == ChunkKind.POSIX_FD ? "file descriptors " + Arrays.toString(fds) : "fabric handles");
    }

    private void requireType(Type t) {
        if (type != t) {
            throw new IllegalStateException("not a type '" + t.code + "' torch handle: " + describe());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TorchHandle h && Arrays.equals(h.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return describe();
    }
}
