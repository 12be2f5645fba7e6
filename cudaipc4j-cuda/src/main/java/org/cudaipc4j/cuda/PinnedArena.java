package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.base.Layouts;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.MemoryCalls;

/**
 * An {@link Arena} of page-locked host memory ({@code cuMemHostAlloc}, portable to every context and mapped for
 * the devices): every segment it allocates is pinned, so asynchronous copies to and from it run at full speed and
 * overlap with the host, and stream memory operations can wait on its words. Closing the arena (or its
 * {@link Context}) invalidates every segment first, then frees the memory, so no access can reach freed memory.
 *
 * <pre>{@code
 * try (PinnedArena pinned = PinnedArena.open(context)) {
 *     MemorySegment host = pinned.allocate(buffer.bytes());
 *     buffer.copyToAsync(0, host, stream);
 *     stream.synchronize();
 * }
 * }</pre>
 *
 * <p>Segments are usable from any thread (a shared arena); {@link #allocate} is thread-safe. Their contents are
 * not zeroed. {@link #close()} is idempotent, unlike the JDK's arenas.
 */
public final class PinnedArena extends ContextResource implements Arena {
    /** {@code CU_MEMHOSTALLOC_PORTABLE}: usable from every context. */
    private static final int PORTABLE = 1;
    /** {@code CU_MEMHOSTALLOC_DEVICEMAP}: mapped into the devices' address space. */
    private static final int DEVICEMAP = 2;
    /** {@code cuMemHostAlloc} returns page-aligned memory; larger alignments are made by over-allocating. */
    private static final long PAGE = 4096;

    private final Arena scope = Arena.ofShared();
    /** The base address of every allocation, to free; guarded by itself. */
    private final List<MemorySegment> blocks = new ArrayList<>();

    private PinnedArena(Context context) {
        super(context);
    }

    /**
     * An empty arena of pinned memory owned by {@code context}.
     *
     * @param context the context that owns the arena
     * @return the arena
     */
    public static PinnedArena open(Context context) {
        return new PinnedArena(context);
    }

    /**
     * Allocates {@code byteSize} bytes of pinned memory aligned to {@code byteAlignment} (a power of two).
     *
     * @throws CudaException when the driver cannot pin that much
     */
    @Override
    @SuppressWarnings("restricted") // the address is the driver's allocation, sized as requested
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        if (byteSize < 0 || byteAlignment <= 0 || Long.bitCount(byteAlignment) != 1) {
            throw new IllegalArgumentException("bad size " + byteSize + " or alignment " + byteAlignment);
        }
        long request = Math.max(1, byteSize) + (byteAlignment > PAGE ? byteAlignment : 0);
        synchronized (blocks) {
            requireOpen();
            context.makeCurrent();
            MemorySegment base;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = DriverCalls.pointerOut(arena);
                MemoryCalls.memHostAlloc(out, request, PORTABLE | DEVICEMAP);
                base = DriverCalls.handle(out);
            }
            blocks.add(base);
            long aligned = Layouts.alignUp(base.address(), byteAlignment);
            return MemorySegment.ofAddress(aligned).reinterpret(byteSize, scope, null);
        }
    }

    @Override
    public MemorySegment.Scope scope() {
        return scope.scope();
    }

    /**
     * The device address of a segment of this arena ({@code cuMemHostGetDevicePointer_v2}): where kernels and
     * stream memory operations reach it. With unified addressing it equals the host address.
     *
     * @param segment a segment allocated from this arena
     * @return its device address
     */
    public long devicePointer(MemorySegment segment) {
        requireOpen();
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemoryCalls.memHostGetDevicePointer(out, segment, 0);
            return out.get(JAVA_LONG, 0);
        }
    }

    /** Invalidates every segment, then frees the memory ({@code cuMemFreeHost}), each block tried. */
    @Override
    void release() {
        List<AutoCloseable> frees = new ArrayList<>();
        synchronized (blocks) {
            scope.close();
            for (MemorySegment block : blocks) {
                frees.add(() -> {
                    context.makeCurrent();
                    MemoryCalls.memFreeHost(block);
                });
            }
            blocks.clear();
        }
        Closing.closeAll(frees.toArray(AutoCloseable[]::new));
    }

    @Override
    public String toString() {
        return "pinned host memory of " + context;
    }
}
