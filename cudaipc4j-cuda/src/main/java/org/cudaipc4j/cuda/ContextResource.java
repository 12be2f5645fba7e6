package org.cudaipc4j.cuda;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A native resource made in a {@link Context} and owned by it: registered when made, so that closing the context
 * first closes every resource still open in it (newest first). Closing the resource itself releases it once and
 * unregisters it; whichever comes first, the resource is released exactly once and no close order can leak it or
 * make a later {@code close()} throw for a context that is gone.
 */
abstract sealed class ContextResource implements AutoCloseable
        permits DeviceBuffer, Event, Stream, CudaModule, PinnedArena, HostRegistration, ForeignResource {
    final Context context;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Registers with {@code context}; call last in the subclass's constructor path, with the native handle made. */
    ContextResource(Context context) {
        this.context = context;
        context.adopt(this);
    }

    /** {@return the context that owns this resource} */
    public Context context() {
        return context;
    }

    /** {@return true once {@link #close()} has run (directly or through the context's close)} */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Checks that the resource is still open, before a use of what it holds.
     *
     * @throws IllegalStateException naming the resource, once it is closed
     */
    protected final void requireOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /** Releases the native resource: called once, with the context still usable. */
    abstract void release();

    /**
     * Releases the native resource and unregisters it from its context. Idempotent; a resource whose
     * context was closed first was closed then, and this does nothing.
     */
    @Override
    public final void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            release();
        } finally {
            context.forget(this);
        }
    }
}
