package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.driver.CuSymbols;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.IpcCalls;
import org.cudaipc4j.cuda.driver.MemoryCalls;

/**
 * A {@code CUipcMemHandle}: an immutable 64-byte value naming a whole {@code cuMemAlloc_v2} allocation of another
 * process. Travels as bytes ({@link #toBytes()}, {@link #fromBytes}) or hex; CuPy's and PyTorch's handles are the
 * same 64 bytes.
 *
 * <p>A handle cannot be opened by the process that exported it, and a process maps a given handle at most once per
 * context: {@link #open} checks both up front and says so. An immutable value; {@link #open} is thread-safe.
 */
public final class IpcMemHandle {
    /** Its size in bytes. */
    public static final int SIZE = CuSymbols.IPC_HANDLE_SIZE;
    private static final StructLayout LAYOUT = CuSymbols.CU_IPC_MEM_HANDLE;

    /** {@code CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS}. */
    private static final int LAZY_ENABLE_PEER_ACCESS = 1;

    /**
     * This process's exports: each buffer exported, with its handle, and the same by handle, which {@link #open}
     * refuses. The buffer does not say when it is freed, so an entry whose buffer is closed is stale: {@link #open}
     * ignores it, and a new export drops the stale ones once the tables have grown to {@code sweepAt}. Written
     * under the lock of {@code EXPORTS}.
     */
    private static final Map<DeviceBuffer, IpcMemHandle> EXPORTS = new ConcurrentHashMap<>();
    private static final Map<IpcMemHandle, DeviceBuffer> EXPORTED_HERE = new ConcurrentHashMap<>();
    private static int sweepAt = 64;

    /** Mappings open in this process: context handle address and memory handle. */
    private static final Set<OpenKey> OPEN = ConcurrentHashMap.newKeySet();

    record OpenKey(long context, IpcMemHandle handle) {
        // Written out: a record's generated equals and hashCode bootstrap through invokedynamic on first use, which
        // costs milliseconds in a fresh JVM, here on the way to a process's first IPC open.
        @Override
        public boolean equals(Object o) {
            return o instanceof OpenKey k && k.context == context && k.handle.equals(handle);
        }

        @Override
        public int hashCode() {
            return 31 * Long.hashCode(context) + handle.hashCode();
        }
    }

    private final byte[] bytes;
    /** The bytes' hash, made once: a reader looks a handle up several times per open. */
    private final int hash;

    private IpcMemHandle(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /**
     * {@return the handle held in {@code bytes}}
     *
     * @param bytes the handle's 64 bytes
     * @throws IllegalArgumentException unless {@code bytes} holds exactly 64 bytes
     */
    public static IpcMemHandle fromBytes(byte[] bytes) {
        return new IpcMemHandle(Checks.handleBytes(bytes, "memory"));
    }

    /**
     * {@return the handle written as {@code hex}}
     *
     * @param hex the handle as {@link #hex()} writes it
     * @throws IllegalArgumentException unless {@code hex} is 128 hex digits
     */
    public static IpcMemHandle fromHex(String hex) {
        return new IpcMemHandle(Checks.handleHex(hex, "memory"));
    }

    /** {@return a copy of the 64 bytes} */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** {@return the 64 bytes as 128 lower-case hex digits} */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * {@return the IPC handle of {@code buffer}'s allocation ({@code cuIpcGetMemHandle}), for another process to open}
     * The same value on every call for one buffer; this process refuses to open it ({@link #open}) while the buffer
     * is open.
     *
     * @param buffer the memory to share
     * @throws IllegalStateException when the buffer is closed
     */
    public static IpcMemHandle export(DeviceBuffer buffer) {
        long ptr = buffer.address();
        IpcMemHandle handle = EXPORTS.get(buffer);
        if (handle != null) {
            return handle;
        }
        synchronized (EXPORTS) {
            handle = EXPORTS.get(buffer);
            if (handle == null) {
                buffer.context().makeCurrent();
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment out = arena.allocate(LAYOUT);
                    IpcCalls.ipcGetMemHandle(out, ptr);
                    handle = fromBytes(out.toArray(JAVA_BYTE));
                }
                if (EXPORTS.size() >= sweepAt) {
                    EXPORTS.keySet().removeIf(DeviceBuffer::isClosed);
                    EXPORTED_HERE.values().removeIf(DeviceBuffer::isClosed);
                    sweepAt = Math.max(64, 2 * EXPORTS.size());
                }
                EXPORTS.put(buffer, handle);
                EXPORTED_HERE.put(handle, buffer);
            }
        }
        return handle;
    }

    /** {@return true while {@code handle} names a buffer of this process that is still open} */
    private static boolean exportedHere(IpcMemHandle handle) {
        DeviceBuffer exporter = EXPORTED_HERE.get(handle);
        return exporter != null && !exporter.isClosed();
    }

    static void closed(OpenKey key) {
        OPEN.remove(key);
    }

    /**
     * Maps the allocation into {@code context} ({@code cuIpcOpenMemHandle_v2}). {@code lazyPeerAccess} sets
     * {@code CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS}, so a handle from another device needs no explicit peer
     * enabling. The mapping's size is the whole allocation's, as the driver reports it
     * ({@code cuMemGetAddressRange_v2}).
     *
     * @param context the context to map into
     * @param lazyPeerAccess whether to enable peer access lazily
     * @return the mapping
     * @throws IllegalArgumentException when this process exported the handle
     * @throws IllegalStateException when the handle is already open in {@code context}
     */
    public IpcMappedMemory open(Context context, boolean lazyPeerAccess) {
        return map(context, -1, lazyPeerAccess);
    }

    /**
     * Like {@link #open(Context, boolean)} with the size the exporter declared, as it travels with the handle:
     * the mapping spans {@code declaredBytes}. When the driver reports a smaller allocation the open fails; when
     * it cannot report the size at all, the declared size is used.
     *
     * @param context the context to map into
     * @param declaredBytes the size the exporter declared
     * @param lazyPeerAccess whether to enable peer access lazily
     * @return the mapping
     * @throws IllegalArgumentException when this process exported the handle, or the allocation is smaller
     */
    public IpcMappedMemory open(Context context, long declaredBytes, boolean lazyPeerAccess) {
        if (declaredBytes < 1) {
            throw new IllegalArgumentException("a mapping needs at least 1 byte, got " + declaredBytes);
        }
        return map(context, declaredBytes, lazyPeerAccess);
    }

    /** Opens the handle; {@code declaredBytes} is -1 when the size must come from the driver. */
    private IpcMappedMemory map(Context context, long declaredBytes, boolean lazyPeerAccess) {
        if (exportedHere(this)) {
            throw new IllegalArgumentException(
                    "IPC memory handle was exported by this process; open it in another process");
        }
        OpenKey key = new OpenKey(context.handle().address(), this);
        if (!OPEN.add(key)) {
            throw new IllegalStateException("IPC memory handle " + shortHex() + " is already open in the "
                    + context + "; a process maps a handle once per context: share that mapping");
        }
        try {
            MemorySegment out = Checks.scratchOut();
            CudaFunction.cuIpcOpenMemHandle_v2.check(openCall(context, bytes, lazyPeerAccess, out));
            long address = out.get(JAVA_LONG, 0);
            try {
                return new IpcMappedMemory(context, key, address, mappedSize(address, declaredBytes));
            } catch (RuntimeException e) {
                Closing.closeAfter(() -> IpcCalls.ipcCloseMemHandle(address), e);
                throw e;
            }
        } catch (RuntimeException e) {
            OPEN.remove(key);
            throw e;
        }
    }

    /**
     * An open's call: {@code context} made current, {@code cuIpcOpenMemHandle}
     * of {@code bytes} into {@code out}.
     *
     * @return the driver's result
     */
    static int openCall(Context context, byte[] bytes, boolean lazyPeerAccess, MemorySegment out) {
        context.makeCurrent();
        return IpcCalls.cuIpcOpenMemHandle_v2(out, bytes, lazyPeerAccess ? LAZY_ENABLE_PEER_ACCESS : 0);
    }

    /**
     * The size query of an open: {@code cuMemGetAddressRange} of {@code address},
     * the size into {@code length}.
     *
     * @return the driver's result
     */
    static int sizeCall(long address, MemorySegment length) {
        return MemoryCalls.cuMemGetAddressRange_v2(MemorySegment.NULL, length, address);
    }

    /** The allocation's size from the driver, checked against {@code declared} (-1: none declared). */
    private static long mappedSize(long address, long declared) {
        MemorySegment length = Checks.scratchOut();
        int r = sizeCall(address, length);
        if (r != CudaFunction.CUDA_SUCCESS) {
            if (declared < 0) {
                throw Checks.failure(CudaFunction.cuMemGetAddressRange_v2, r);
            }
            return declared;
        }
        long size = length.get(JAVA_LONG, 0);
        if (declared > size) {
            throw new IllegalArgumentException("the IPC allocation has " + size + " bytes, " + declared
                    + " expected");
        }
        return declared < 0 ? size : declared;
    }

    private String shortHex() {
        return hex().substring(0, 16) + "...";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IpcMemHandle h && h.hash == hash && Arrays.equals(h.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "IpcMemHandle[" + hex() + "]";
    }
}
