package org.cudaipc4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cudaipc4j.driver.CuDriver;

/**
 * Page-locked host memory ({@code cuMemHostAlloc}, portable to every context): asynchronous copies to and from it
 * run at full speed and overlap with the host. {@link #close()} invalidates {@link #segment()} before freeing.
 */
public final class PinnedHostBuffer implements AutoCloseable {
    /** {@code CU_MEMHOSTALLOC_PORTABLE}. */
    private static final int PORTABLE = 1;

    private final Context context;
    private final MemorySegment address;
    private final Arena scope;
    private final MemorySegment segment;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PinnedHostBuffer(Context context, MemorySegment address, long bytes) {
        this.context = context;
        this.address = address;
        this.scope = Arena.ofShared();
        this.segment = address.reinterpret(bytes, scope, null);
    }

    /** Allocates {@code bytes} (at least 1) of pinned host memory. */
    public static PinnedHostBuffer allocate(Context context, long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a pinned host buffer needs at least 1 byte, got " + bytes);
        }
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = Cu.pointerOut(arena);
            Cu.check("cuMemHostAlloc", CuDriver.cuMemHostAlloc(out, bytes, PORTABLE));
            return new PinnedHostBuffer(context, Cu.handle(out), bytes);
        }
    }

    /** The memory; invalid after {@link #close()}. */
    public MemorySegment segment() {
        return segment;
    }

    public long bytes() {
        return segment.byteSize();
    }

    /** Invalidates {@link #segment()} and frees the memory ({@code cuMemFreeHost}). Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            scope.close();
            context.makeCurrent();
            Cu.check("cuMemFreeHost", CuDriver.cuMemFreeHost(address));
        }
    }
}
