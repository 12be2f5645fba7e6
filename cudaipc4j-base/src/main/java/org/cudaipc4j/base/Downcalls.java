package org.cudaipc4j.base;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Supplier;

/**
 * Downcall handles into a library loaded at run time, which may lack a function (an older release): such a function
 * gets a handle of the same type that throws at each call. The failure then comes where the function is called and
 * names it, never while a class initialises: a holder class whose {@code static final} handle failed to link would
 * stay unusable for the rest of the process.
 */
public final class Downcalls {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SUPPLIER_GET;

    static {
        try {
            SUPPLIER_GET = MethodHandles.publicLookup().findVirtual(Supplier.class, "get",
                    MethodType.methodType(Object.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Downcalls() {}

    /**
     * {@return the downcall handle of {@code name} in {@code lookup}, or where {@code lookup} lacks it a handle of
     * the same type that throws {@code missing.get()} at each call}
     *
     * @param lookup the library's symbols
     * @param name the function's exported name
     * @param descriptor its C signature
     * @param missing makes the exception for a call of a function the library lacks
     * @param options how it is linked, such as errno's capture
     */
    @SuppressWarnings("restricted") // the descriptor is the function's declaration, checked against its header
    public static MethodHandle link(SymbolLookup lookup, String name, FunctionDescriptor descriptor,
                                    Supplier<? extends RuntimeException> missing, Linker.Option... options) {
        return lookup.find(name).map(address -> LINKER.downcallHandle(address, descriptor, options))
                .orElseGet(() -> throwing(linkedType(descriptor, options), missing));
    }

    /** The type a handle linked with {@code options} has: errno's capture adds a leading segment, for instance. */
    @SuppressWarnings("restricted") // an unbound handle, made only for its type, never called
    private static MethodType linkedType(FunctionDescriptor descriptor, Linker.Option... options) {
        return options.length == 0 ? descriptor.toMethodType()
                : LINKER.downcallHandle(descriptor, options).type().dropParameterTypes(0, 1);
    }

    /**
     * {@return a handle of {@code type} that ignores its arguments and throws {@code exception.get()}, made anew at
     * each call}
     *
     * @param type the type of the handle it stands in for
     * @param exception makes the exception
     */
    public static MethodHandle throwing(MethodType type, Supplier<? extends RuntimeException> exception) {
        MethodHandle make = SUPPLIER_GET.bindTo(exception).asType(MethodType.methodType(RuntimeException.class));
        MethodHandle raise = MethodHandles.collectArguments(
                MethodHandles.throwException(type.returnType(), RuntimeException.class), 0, make);
        return MethodHandles.dropArguments(raise, 0, type.parameterList());
    }
}
