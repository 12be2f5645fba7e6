package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.driver.MemoryCalls;

/**
 * Host memory this process already has (a shared-memory mapping, a buffer from another library), page-locked and
 * mapped for the devices ({@code cuMemHostRegister_v2}, portable and device-mapped): copies to and from it run at
 * full speed, and kernels and stream memory operations ({@link Stream#waitValue32}, {@link Stream#writeValue32})
 * reach it at {@link #devicePointer()}. A word of a shared mapping registered so in several processes is one word
 * for all their streams and CPUs: any of them can release a wait on it with a plain store.
 *
 * <p>The memory stays owned by whoever mapped it; {@link #close()} (or the context's) only unregisters it, and must
 * come before the memory is unmapped. Owned by its {@link Context}; thread-safe.
 */
public final class HostRegistration extends ContextResource {
    /** {@code CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP}. */
    private static final int PORTABLE_DEVICEMAP = 0x01 | 0x02;
    /** The driver registers whole pages. */
    private static final long PAGE = 4096;

    private final MemorySegment memory;
    private final long devicePointer;

    private HostRegistration(Context context, MemorySegment memory, long devicePointer) {
        super(context);
        this.memory = memory;
        this.devicePointer = devicePointer;
    }

    /**
     * Registers {@code memory} (native, page-aligned, a whole number of pages) with every context.
     *
     * @param context the context that owns the registration
     * @param memory the host memory
     * @return the registration; closing it unregisters the memory
     * @throws IllegalArgumentException when it is not native or not page-aligned
     * @throws CudaException when the driver refuses (e.g. {@code CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED})
     */
    public static HostRegistration register(Context context, MemorySegment memory) {
        if (!memory.isNative() || memory.address() % PAGE != 0 || memory.byteSize() % PAGE != 0
                || memory.byteSize() == 0) {
            throw new IllegalArgumentException("host registration needs native, page-aligned memory of whole pages"
                    + " (address 0x" + Long.toHexString(memory.address()) + ", " + memory.byteSize() + " bytes)");
        }
        context.makeCurrent();
        MemoryCalls.memHostRegister(memory, memory.byteSize(), PORTABLE_DEVICEMAP);
        try {
            long device;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(JAVA_LONG);
                MemoryCalls.memHostGetDevicePointer(out, memory, 0);
                device = out.get(JAVA_LONG, 0);
            }
            return new HostRegistration(context, memory, device);
        } catch (RuntimeException e) {
            Closing.closeAfter(() -> MemoryCalls.memHostUnregister(memory), e);
            throw e;
        }
    }

    /** {@return the registered memory, as the host sees it} */
    public MemorySegment memory() {
        return memory;
    }

    /** {@return where devices reach byte 0 of the memory} */
    public long devicePointer() {
        requireOpen();
        return devicePointer;
    }

    /**
     * {@return the device address of byte {@code offset}}
     *
     * @param offset a byte offset in the memory
     */
    public long devicePointer(long offset) {
        java.util.Objects.checkIndex(offset, memory.byteSize());
        return devicePointer() + offset;
    }

    /** Unregisters the memory ({@code cuMemHostUnregister}); the memory itself stays as it is. */
    @Override
    void release() {
        context.makeCurrent();
        MemoryCalls.memHostUnregister(memory);
    }

    @Override
    public String toString() {
        return "host registration of " + memory.byteSize() + " bytes on " + context.device();
    }
}
