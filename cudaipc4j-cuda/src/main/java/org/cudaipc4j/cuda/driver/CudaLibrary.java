package org.cudaipc4j.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.cudaipc4j.base.Downcalls;

/**
 * Loads the CUDA driver library once, lazily, and links downcall handles against it.
 *
 * <p>Names tried, in order: {@code libcuda.so.1}, then {@code libcuda.so}; the system property
 * {@code cudaipc4j.libcuda} (comma-separated names or paths) replaces that list. When none loads, every call
 * of a {@link CudaFunction} throws the exception {@link #reportFailuresWith made for a missing library}, from the
 * names tried; a function the loaded library lacks throws the one made for a missing symbol, from its name. Neither
 * failure is cached as a class initialisation error, so each call reports it the same way. A checked call that the
 * driver refuses throws the exception made for a failed call.
 *
 * <p>The binding knows no type above it: the typed layer ({@code Cuda}, which every way into the driver passes
 * first) installs its public exceptions through {@link #reportFailuresWith} when it loads. The exceptions are made
 * when a call fails, so a handle linked before that still reports through them.
 */
public final class CudaLibrary {
    private static final Linker LINKER = Linker.nativeLinker();

    /** Makes the exception for a library that did not load, from the names tried. */
    private static volatile Function<List<String>, ? extends RuntimeException> onDriverNotFound =
            names -> new IllegalStateException("the CUDA driver library did not load (tried "
                    + String.join(", ", names) + ")");
    /** Makes the exception for a function the loaded library lacks, from its name and the library's. */
    private static volatile BiFunction<String, String, ? extends RuntimeException> onMissingSymbol =
            (symbol, library) -> new IllegalStateException(library + " has no symbol " + symbol);
    /** Makes the exception for a call that returned an error, from the function's name and the code. */
    private static volatile CallFailure onCallFailed =
            (function, code) -> new IllegalStateException(function + " failed: CUresult " + code);

    /** Makes the exception for a driver call that returned {@code code}, not {@code CUDA_SUCCESS}. */
    @FunctionalInterface
    public interface CallFailure {
        /**
         * The exception for {@code code}.
         *
         * @param function the {@code cuda.h} name of the function that failed
         * @param code     the {@code CUresult} it returned
         * @return the exception to throw
         */
        RuntimeException of(String function, int code);
    }

    private CudaLibrary() {}

    /**
     * Sets the exceptions that report a driver library that did not load ({@code driverNotFound}, given the names
     * tried), a function the loaded library lacks ({@code missingSymbol}, given the function's and the library's
     * names) and a call that returned an error ({@code callFailed}, for {@link CudaFunction#failure}). Until then all
     * are {@link IllegalStateException}s.
     *
     * @param driverNotFound makes the exception for a library that did not load
     * @param missingSymbol makes the exception for a missing function
     * @param callFailed makes the exception for a failed call
     */
    public static void reportFailuresWith(Function<List<String>, ? extends RuntimeException> driverNotFound,
                                          BiFunction<String, String, ? extends RuntimeException> missingSymbol,
                                          CallFailure callFailed) {
        onDriverNotFound = Objects.requireNonNull(driverNotFound, "driverNotFound");
        onMissingSymbol = Objects.requireNonNull(missingSymbol, "missingSymbol");
        onCallFailed = Objects.requireNonNull(callFailed, "callFailed");
    }

    /** The exception for {@code code}, returned by {@code function}. */
    static RuntimeException callFailed(String function, int code) {
        return onCallFailed.of(function, code);
    }

    /** The exception for a driver library that did not load under any of {@code namesTried}. */
    static RuntimeException driverNotFound(List<String> namesTried) {
        return onDriverNotFound.apply(List.copyOf(namesTried));
    }

    /** The exception for {@code symbol}, which {@code library} lacks. */
    static RuntimeException missingSymbol(String symbol, String library) {
        return onMissingSymbol.apply(symbol, library);
    }

    /** The library as loaded once per process: a lookup and the name that loaded, or the names that all failed. */
    private record Loaded(SymbolLookup lookup, String name, List<String> namesTried) {
        static Loaded load(List<String> names) {
            for (String name : names) {
                try {
                    return new Loaded(SymbolLookup.libraryLookup(name, Arena.global()), name, names);
                } catch (IllegalArgumentException notLoadable) {
                    // try the next name
                }
            }
            return new Loaded(null, null, names);
        }
    }

    /** The driver library of this process, loaded on first use. */
    private static final class ProcessLibrary {
        static final Loaded INSTANCE = Loaded.load(namesToTry());
    }

    /** {@return the names this process tries: {@link CudaSettings#LIBCUDA}} */
    public static List<String> namesToTry() {
        return CudaSettings.LIBCUDA.get();
    }

    /**
     * Loads the first of {@code names} that exists, in a global arena (never unloaded).
     *
     * @param names the library names to try, in order
     * @return the loaded library's symbols
     * @throws RuntimeException the {@linkplain #reportFailuresWith missing library's exception} when none loads
     */
    public static SymbolLookup open(List<String> names) {
        Loaded loaded = Loaded.load(names);
        if (loaded.lookup() == null) {
            throw driverNotFound(names);
        }
        return loaded.lookup();
    }

    /** {@return true when the driver library of this process has loaded (loads it on first call)} */
    public static boolean isAvailable() {
        return ProcessLibrary.INSTANCE.lookup() != null;
    }

    /**
     * The name under which the driver library loaded.
     *
     * @return the library's name
     * @throws RuntimeException the {@linkplain #reportFailuresWith missing library's exception} when it did not load
     */
    public static String loadedName() {
        requireLoaded();
        return ProcessLibrary.INSTANCE.name();
    }

    /**
     * Throws unless the driver library of this process has loaded.
     *
     * @throws RuntimeException the {@linkplain #reportFailuresWith missing library's exception}, from the names tried
     */
    public static void requireLoaded() {
        Loaded loaded = ProcessLibrary.INSTANCE;
        if (loaded.lookup() == null) {
            throw driverNotFound(loaded.namesTried());
        }
    }

    /**
     * A downcall handle for {@code symbol} with {@code descriptor} (its {@link CudaFunction}'s). When the library or
     * the symbol is missing, the handle has the same type and throws the {@linkplain #reportFailuresWith reported}
     * exception on every call.
     */
    static MethodHandle downcall(String symbol, String older, FunctionDescriptor descriptor) {
        MethodType type = descriptor.toMethodType();
        Loaded loaded = ProcessLibrary.INSTANCE;
        if (loaded.lookup() == null) {
            return Downcalls.throwing(type, () -> driverNotFound(loaded.namesTried()));
        }
        Optional<MemorySegment> address = find(loaded.lookup(), symbol, older).map(Resolved::address);
        if (address.isEmpty()) {
            return Downcalls.throwing(type, () -> missingSymbol(symbol, loaded.name()));
        }
        return LINKER.downcallHandle(address.get(), descriptor);
    }

    /** The export a call to {@code symbol} goes to: its own, or its {@linkplain CudaFunction#fallback fallback}'s. */
    record Resolved(String name, MemorySegment address) {}

    /**
     * Finds {@code symbol} in {@code lookup}, else {@code older} (its {@linkplain CudaFunction#fallback fallback},
     * null for none); empty when neither is exported. The name {@code cuda.h} maps to always wins where the driver
     * has it.
     */
    static Optional<Resolved> find(SymbolLookup lookup, String symbol, String older) {
        Optional<MemorySegment> own = lookup.find(symbol);
        if (own.isPresent()) {
            return Optional.of(new Resolved(symbol, own.get()));
        }
        return older == null ? Optional.empty() : lookup.find(older).map(a -> new Resolved(older, a));
    }

    /**
     * The export that calls to {@code symbol} reach in this process's driver: {@code symbol} itself, its fallback
     * on an older driver, or empty when the driver or both names are missing.
     *
     * @param symbol a function's {@code cuda.h} name
     * @return the export called, or empty
     */
    public static Optional<String> resolvedName(String symbol) {
        Loaded loaded = ProcessLibrary.INSTANCE;
        String older = CudaFunction.named(symbol).flatMap(CudaFunction::fallback).orElse(null);
        return loaded.lookup() == null ? Optional.empty() : find(loaded.lookup(), symbol, older).map(Resolved::name);
    }
}
