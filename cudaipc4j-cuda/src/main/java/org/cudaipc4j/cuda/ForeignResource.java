package org.cudaipc4j.cuda;

/**
 * The one way for a resource of another package or module (a mapping of another process's memory made by the
 * sharing package {@code org.cudaipc4j.cuda.ipc}, a view of another framework's memory) to be owned by a
 * {@link Context} as this package's own resources are: registered when made, closed with the context (newest first)
 * if it is still open then, released exactly once whichever comes first. Subclasses make what they hold before
 * calling this constructor and give it back in {@link #releaseResource()}; memory among them also implements
 * {@link DeviceMemory}.
 */
public abstract non-sealed class ForeignResource extends ContextResource {
    /**
     * Registers the new resource with {@code context}.
     *
     * @param context the context that owns the resource
     * @throws IllegalStateException when it is closed
     */
    protected ForeignResource(Context context) {
        super(context);
    }

    /**
     * Gives back what the resource holds: called once, by {@link #close()} or by its context's close, with the
     * context still usable. Failures propagate to the caller of {@code close()}.
     */
    protected abstract void releaseResource();

    @Override
    final void release() {
        releaseResource();
    }
}
