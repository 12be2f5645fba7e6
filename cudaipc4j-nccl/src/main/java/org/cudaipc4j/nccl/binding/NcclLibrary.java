package org.cudaipc4j.nccl.binding;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One loaded {@code libnccl.so.2}: its symbols, linked on first use. A library is loaded once into a global arena
 * and never unloaded (NCCL keeps threads of its own).
 */
public final class NcclLibrary {
    private static final Linker LINKER = Linker.nativeLinker();

    private final String name;
    private final SymbolLookup lookup;
    /** Linked handles by {@link NcclFunction#ordinal()}; empty until first use. */
    private final AtomicReferenceArray<MethodHandle> handles =
            new AtomicReferenceArray<>(NcclFunction.values().length);

    private NcclLibrary(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /**
     * Loads {@code nameOrPath}: a file when it contains a {@code /}, else a name the dynamic loader searches for.
     *
     * @param nameOrPath the library's name or path
     * @return the loaded library
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
     * {@return the downcall handle of {@code function}, or empty when this library does not export it}
     *
     * @param function the function
     */
    public Optional<MethodHandle> handle(NcclFunction function) {
        MethodHandle linked = handles.get(function.ordinal());
        if (linked != null) {
            return Optional.of(linked);
        }
        Optional<MemorySegment> address = lookup.find(function.name());
        if (address.isEmpty()) {
            return Optional.empty();
        }
        MethodHandle made = LINKER.downcallHandle(address.get(), function.descriptor());
        handles.compareAndSet(function.ordinal(), null, made);
        return Optional.of(handles.get(function.ordinal()));
    }
}
