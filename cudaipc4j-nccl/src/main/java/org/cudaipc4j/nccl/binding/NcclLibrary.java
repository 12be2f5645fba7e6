package org.cudaipc4j.nccl.binding;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.cudaipc4j.base.Downcalls;

/**
 * An NCCL library file, and the one this process calls. A file is loaded by name or path ({@link #load}), its
 * version read ({@link #ncclGetVersion}) and, once accepted, bound ({@link #bind}): from then on {@link NcclCalls}
 * links each function against it on the function's first call. One library per process, because the handles are
 * {@code static final} (constants the JIT folds into each call) and because the ranks of a communicator need one
 * NCCL release anyway. A library is loaded into a global arena and never unloaded (NCCL keeps threads of its own).
 */
public final class NcclLibrary {
    /** The bound library and how it reports a function it lacks; null until {@link #bind}. */
    private static volatile Binding bound;

    private record Binding(NcclLibrary library, Function<String, ? extends RuntimeException> missing) {}

    private final String name;
    private final SymbolLookup lookup;

    private NcclLibrary(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /**
     * Loads {@code nameOrPath}: a file when it contains a {@code /}, else a name the dynamic loader searches for.
     *
     * @param nameOrPath the library's name or path
     * @return the loaded library, not yet bound
     * @throws IllegalArgumentException with the loader's reason when it cannot be loaded
     */
    public static NcclLibrary load(String nameOrPath) {
        SymbolLookup lookup = nameOrPath.contains("/")
                ? SymbolLookup.libraryLookup(Path.of(nameOrPath), Arena.global())
                : SymbolLookup.libraryLookup(nameOrPath, Arena.global());
        return new NcclLibrary(nameOrPath, lookup);
    }

    /** {@return the name or path it was loaded by} */
    public String name() {
        return name;
    }

    /**
     * {@return whether this library exports {@code function}}
     *
     * @param function the function
     */
    public boolean has(NcclFunction function) {
        return lookup.find(function.name()).isPresent();
    }

    /**
     * {@code ncclResult_t ncclGetVersion(int* version)} of this file, bound or not: the one call made before a
     * library is accepted, through a handle linked for it alone (once per load, so not held).
     *
     * @param version where the version code is written (an {@code int})
     * @return the {@code ncclResult_t}
     * @throws IllegalStateException when the file has no {@code ncclGetVersion} (see {@link #has})
     */
    public int ncclGetVersion(MemorySegment version) {
        MethodHandle handle = Downcalls.link(lookup, NcclFunction.ncclGetVersion.name(),
                NcclFunction.ncclGetVersion.descriptor(),
                () -> new IllegalStateException(name + " has no ncclGetVersion"));
        try {
            return (int) handle.invokeExact(version);
        } catch (Throwable t) {
            throw NcclCalls.unexpected(NcclFunction.ncclGetVersion, t);
        }
    }

    /**
     * Makes this library the one the process calls, unless one is already: the first accepted library stays bound.
     *
     * @param missing makes the exception a call throws for a function the library lacks, from the function's name
     * @return the library the process calls: this one, or the one bound before (see {@link #isSameFile})
     */
    public NcclLibrary bind(Function<String, ? extends RuntimeException> missing) {
        Objects.requireNonNull(missing, "missing");
        synchronized (NcclLibrary.class) {
            if (bound == null) {
                bound = new Binding(this, missing);
            }
            return bound.library();
        }
    }

    /**
     * {@return whether {@code other} is this library's file, loaded under another name or path} The dynamic loader
     * loads a file once, so both then have the same {@code ncclGetVersion}.
     *
     * @param other another loaded library
     */
    public boolean isSameFile(NcclLibrary other) {
        return other == this || versionAddress().equals(other.versionAddress());
    }

    private Optional<Long> versionAddress() {
        return lookup.find(NcclFunction.ncclGetVersion.name()).map(MemorySegment::address);
    }

    /**
     * The handle of {@code function} in the bound library, for the holders of {@link NcclCalls}: linked now, or
     * where the library lacks the function a handle of the same type that throws the bound library's exception for
     * it at each call.
     */
    static MethodHandle link(NcclFunction function) {
        Binding b = bound;
        if (b == null) {
            // Every call reaches here through an Nccl, which exists only once its library is bound.
            throw new IllegalStateException(function.name() + " called before an NCCL library was bound");
        }
        return Downcalls.link(b.library().lookup, function.name(), function.descriptor(),
                () -> b.missing().apply(function.name()));
    }
}
