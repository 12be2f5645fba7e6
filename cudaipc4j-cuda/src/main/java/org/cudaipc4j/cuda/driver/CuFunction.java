package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.Optional;

/**
 * One libcuda function, declared once in {@link CuDriver}: its {@code cuda.h} name, its C signature as an FFM
 * descriptor, and calls through a downcall handle linked on first use. Each subclass is one Java signature, named by
 * its parameters' JVM letters ({@code I} {@code int}, {@code J} {@code long}, {@code P} {@link MemorySegment}: a
 * pointer or a handle; {@code H} {@code byte[]}: the 64 bytes of an IPC handle passed by value); each has
 * {@code call(...)}, which returns the {@code CUresult}, and {@code check(...)}, which throws the function's
 * {@linkplain #failure failure} unless it is {@code CUDA_SUCCESS}. Both invoke the handle with {@code invokeExact} on
 * the declared primitive and segment types: nothing is boxed.
 *
 * <p>C types map as: {@code CUresult}, {@code int}, {@code unsigned int}, {@code CUdevice} and enums to {@code int};
 * {@code size_t}, {@code CUdeviceptr} and {@code unsigned long long} to {@code long}; pointers and handles to an
 * address; IPC handles, passed by value, to a 64-byte struct, linked in the form {@link IpcHandleByValue} gives.
 * {@code unsigned char} arguments are {@code int}s passed zero-extended: the ABI lets the callee read the low byte,
 * and zero-extension is what compilers that rely on extension expect.
 *
 * <p>A missing library or function is not an error of the declaration: the handle then throws the exception the
 * typed layer {@linkplain CudaLibrary#reportFailuresWith installed} for it, at each call.
 */
public abstract sealed class CuFunction {
    private final String name;
    private final String fallback;
    /** The Java parameter types the descriptor is made from, or null where the declaration gave it. */
    private final Class<?>[] parameters;
    /** Made on first use: declaring every function costs no descriptor. */
    private volatile FunctionDescriptor descriptor;
    /** Linked once, on the first call. */
    private volatile MethodHandle handle;

    private CuFunction(String name, Class<?>... parameters) {
        this(name, null, null, parameters);
    }

    private CuFunction(String name, FunctionDescriptor descriptor) {
        this(name, null, descriptor, null);
    }

    private CuFunction(String name, String fallback, Class<?>... parameters) {
        this(name, fallback, null, parameters);
    }

    private CuFunction(String name, String fallback, FunctionDescriptor descriptor, Class<?>[] parameters) {
        this.name = name;
        this.fallback = fallback;
        this.descriptor = descriptor;
        this.parameters = parameters;
        CuDriver.declare(this);
    }

    private static FunctionDescriptor descriptorOf(Class<?>... parameters) {
        MemoryLayout[] layouts = new MemoryLayout[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            layouts[i] = parameters[i] == int.class ? JAVA_INT : parameters[i] == long.class ? JAVA_LONG : ADDRESS;
        }
        return FunctionDescriptor.of(JAVA_INT, layouts);
    }

    /**
     * {@return the name {@code cuda.h} maps the function to, which is the export called, e.g. {@code cuMemAlloc_v2}}
     */
    public final String name() {
        return name;
    }

    /**
     * {@return the older export called where the driver lacks {@link #name()}, with the same C signature and meaning
     * for this binding's use; empty for almost every function (an unversioned name is usually another ABI)}
     */
    public final Optional<String> fallback() {
        return Optional.ofNullable(fallback);
    }

    /** {@return the C signature} */
    public final FunctionDescriptor descriptor() {
        FunctionDescriptor d = descriptor;
        if (d == null) {
            d = descriptorOf(parameters);
            descriptor = d;
        }
        return d;
    }

    /** {@return the Java type of {@code call}: the descriptor's, with an IPC handle passed by value as its bytes} */
    public final MethodType type() {
        return IpcHandleByValue.javaType(descriptor());
    }

    /** {@return what is linked: the C signature, or where it passes an IPC handle by value, its platform's form} */
    final FunctionDescriptor linkedDescriptor() {
        return IpcHandleByValue.linked(descriptor());
    }

    /** {@return true once the handle is linked (by a call or by {@link #link()})} */
    public final boolean isLinked() {
        return handle != null;
    }

    /**
     * Links the handle now unless it is: what the first call would do. Without the library or the function, the
     * handle throws the reported exception when called.
     */
    public final void link() {
        handle();
    }

    /** {@return the handle, linked on first use} */
    final MethodHandle handle() {
        MethodHandle h = handle;
        return h != null ? h : linkOnce();
    }

    private synchronized MethodHandle linkOnce() {
        MethodHandle h = handle;
        if (h == null) {
            h = CudaLibrary.downcall(name, fallback, linkedDescriptor());
            handle = h;
        }
        return h;
    }

    /**
     * {@return the exception for {@code code}, returned by this function: what {@code check} throws}
     *
     * @param code the {@code CUresult} returned
     */
    public final RuntimeException failure(int code) {
        return CudaLibrary.callFailed(name, code);
    }

    /**
     * Throws this function's {@linkplain #failure failure} unless {@code result} is {@code CUDA_SUCCESS}.
     *
     * @param result the {@code CUresult} returned
     */
    public final void checkResult(int result) {
        if (result != CuDriver.CUDA_SUCCESS) {
            throw failure(result);
        }
    }

    @Override
    public final String toString() {
        return name;
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("unexpected checked exception from a CUDA downcall", t);
    }

    /** A function of Java type {@code (int)int}. */
    public static final class I extends CuFunction {
        I(String name) {
            super(name, int.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @return the {@code CUresult} the function returned
         */
        public int call(int a) {
            try {
                return (int) handle().invokeExact(a);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         */
        public void check(int a) {
            checkResult(call(a));
        }
    }

    /** A function of Java type {@code (long)int}. */
    public static final class J extends CuFunction {
        J(String name) {
            super(name, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a) {
            try {
                return (int) handle().invokeExact(a);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         */
        public void check(long a) {
            checkResult(call(a));
        }
    }

    /** A function of Java type {@code (MemorySegment)int}. */
    public static final class P extends CuFunction {
        P(String name) {
            super(name, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a) {
            try {
                return (int) handle().invokeExact(a);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         */
        public void check(MemorySegment a) {
            checkResult(call(a));
        }
    }

    /** A function of Java type {@code ()int}. */
    public static final class V extends CuFunction {
        V(String name) {
            super(name);
        }

        /**
         * Calls the function without checking its result.
         * @return the {@code CUresult} the function returned
         */
        public int call() {
            try {
                return (int) handle().invokeExact();
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         */
        public void check() {
            checkResult(call());
        }
    }

    /** A function of Java type {@code (int, MemorySegment)int}. */
    public static final class IP extends CuFunction {
        IP(String name) {
            super(name, int.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @return the {@code CUresult} the function returned
         */
        public int call(int a, MemorySegment b) {
            try {
                return (int) handle().invokeExact(a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         */
        public void check(int a, MemorySegment b) {
            checkResult(call(a, b));
        }
    }

    /** A function of Java type {@code (long, long)int}. */
    public static final class JJ extends CuFunction {
        JJ(String name) {
            super(name, long.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, long b) {
            try {
                return (int) handle().invokeExact(a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         */
        public void check(long a, long b) {
            checkResult(call(a, b));
        }
    }

    /** A function of Java type {@code (long, MemorySegment)int}. */
    public static final class JP extends CuFunction {
        JP(String name) {
            super(name, long.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, MemorySegment b) {
            try {
                return (int) handle().invokeExact(a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         */
        public void check(long a, MemorySegment b) {
            checkResult(call(a, b));
        }
    }

    /** A function of Java type {@code (MemorySegment, int)int}. */
    public static final class PI extends CuFunction {
        PI(String name) {
            super(name, MemorySegment.class, int.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, int b) {
            try {
                return (int) handle().invokeExact(a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         */
        public void check(MemorySegment a, int b) {
            checkResult(call(a, b));
        }
    }

    /** A function of Java type {@code (MemorySegment, long)int}. */
    public static final class PJ extends CuFunction {
        PJ(String name) {
            super(name, MemorySegment.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b) {
            try {
                return (int) handle().invokeExact(a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         */
        public void check(MemorySegment a, long b) {
            checkResult(call(a, b));
        }
    }

    /** A function of Java type {@code (MemorySegment, MemorySegment)int}. */
    public static final class PP extends CuFunction {
        PP(String name) {
            super(name, MemorySegment.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, MemorySegment b) {
            try {
                return (int) handle().invokeExact(a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         */
        public void check(MemorySegment a, MemorySegment b) {
            checkResult(call(a, b));
        }
    }

    /**
     * A function of Java type {@code (MemorySegment, byte[])int}: a pointer and an IPC handle passed by value, linked
     * as {@link IpcHandleByValue} says.
     */
    public static final class PH extends CuFunction {
        PH(String name, FunctionDescriptor descriptor) {
            super(name, descriptor);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument: the handle's 64 bytes
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, byte[] b) {
            try {
                return IpcHandleByValue.call(handle(), IpcHandleByValue.AS_STACK_WORDS, a, b);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument: the handle's 64 bytes
         */
        public void check(MemorySegment a, byte[] b) {
            checkResult(call(a, b));
        }
    }

    /**
     * A function of Java type {@code (MemorySegment, byte[], int)int}: a pointer, an IPC handle passed by value and
     * an {@code int}, linked as {@link IpcHandleByValue} says.
     */
    public static final class PHI extends CuFunction {
        PHI(String name, FunctionDescriptor descriptor) {
            super(name, descriptor);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument: the handle's 64 bytes
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, byte[] b, int c) {
            try {
                return IpcHandleByValue.call(handle(), IpcHandleByValue.AS_STACK_WORDS, a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument: the handle's 64 bytes
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, byte[] b, int c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (int, MemorySegment, MemorySegment)int}. */
    public static final class IPP extends CuFunction {
        IPP(String name) {
            super(name, int.class, MemorySegment.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(int a, MemorySegment b, MemorySegment c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(int a, MemorySegment b, MemorySegment c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (long, int, long)int}. */
    public static final class JIJ extends CuFunction {
        JIJ(String name) {
            super(name, long.class, int.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, int b, long c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(long a, int b, long c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (long, long, long)int}. */
    public static final class JJJ extends CuFunction {
        JJJ(String name) {
            super(name, long.class, long.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, long b, long c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(long a, long b, long c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (long, MemorySegment, long)int}. */
    public static final class JPJ extends CuFunction {
        JPJ(String name) {
            super(name, long.class, MemorySegment.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, MemorySegment b, long c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(long a, MemorySegment b, long c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, int, int)int}. */
    public static final class PII extends CuFunction {
        PII(String name) {
            super(name, MemorySegment.class, int.class, int.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, int b, int c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, int b, int c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, int, MemorySegment)int}. */
    public static final class PIP extends CuFunction {
        PIP(String name) {
            super(name, MemorySegment.class, int.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, int b, MemorySegment c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, int b, MemorySegment c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, int)int}. */
    public static final class PJI extends CuFunction {
        PJI(String name) {
            super(name, MemorySegment.class, long.class, int.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, int c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, long b, int c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, long)int}. */
    public static final class PJJ extends CuFunction {
        PJJ(String name) {
            super(name, MemorySegment.class, long.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, long c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, long b, long c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, MemorySegment, int)int}. */
    public static final class PPI extends CuFunction {
        PPI(String name) {
            super(name, MemorySegment.class, MemorySegment.class, int.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, MemorySegment b, int c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, MemorySegment b, int c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, MemorySegment, long)int}. */
    public static final class PPJ extends CuFunction {
        PPJ(String name) {
            super(name, MemorySegment.class, MemorySegment.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, MemorySegment b, long c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, MemorySegment b, long c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (MemorySegment, MemorySegment, MemorySegment)int}. */
    public static final class PPP extends CuFunction {
        PPP(String name) {
            super(name, MemorySegment.class, MemorySegment.class, MemorySegment.class);
        }

        PPP(String name, String fallback) {
            super(name, fallback, MemorySegment.class, MemorySegment.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, MemorySegment b, MemorySegment c) {
            try {
                return (int) handle().invokeExact(a, b, c);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         */
        public void check(MemorySegment a, MemorySegment b, MemorySegment c) {
            checkResult(call(a, b, c));
        }
    }

    /** A function of Java type {@code (long, int, long, MemorySegment)int}. */
    public static final class JIJP extends CuFunction {
        JIJP(String name) {
            super(name, long.class, int.class, long.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, int b, long c, MemorySegment d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(long a, int b, long c, MemorySegment d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (long, long, long, MemorySegment)int}. */
    public static final class JJJP extends CuFunction {
        JJJP(String name) {
            super(name, long.class, long.class, long.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, long b, long c, MemorySegment d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(long a, long b, long c, MemorySegment d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (long, long, MemorySegment, long)int}. */
    public static final class JJPJ extends CuFunction {
        JJPJ(String name) {
            super(name, long.class, long.class, MemorySegment.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, long b, MemorySegment c, long d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(long a, long b, MemorySegment c, long d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (long, MemorySegment, long, MemorySegment)int}. */
    public static final class JPJP extends CuFunction {
        JPJP(String name) {
            super(name, long.class, MemorySegment.class, long.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, MemorySegment b, long c, MemorySegment d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(long a, MemorySegment b, long c, MemorySegment d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, int, int)int}. */
    public static final class PJII extends CuFunction {
        PJII(String name) {
            super(name, MemorySegment.class, long.class, int.class, int.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, int c, int d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(MemorySegment a, long b, int c, int d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, int, long)int}. */
    public static final class PJIJ extends CuFunction {
        PJIJ(String name) {
            super(name, MemorySegment.class, long.class, int.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, int c, long d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(MemorySegment a, long b, int c, long d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, long, MemorySegment)int}. */
    public static final class PJJP extends CuFunction {
        PJJP(String name) {
            super(name, MemorySegment.class, long.class, long.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, long c, MemorySegment d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(MemorySegment a, long b, long c, MemorySegment d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, MemorySegment, long)int}. */
    public static final class PJPJ extends CuFunction {
        PJPJ(String name) {
            super(name, MemorySegment.class, long.class, MemorySegment.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, MemorySegment c, long d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(MemorySegment a, long b, MemorySegment c, long d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, MemorySegment, MemorySegment)int}. */
    public static final class PJPP extends CuFunction {
        PJPP(String name) {
            super(name, MemorySegment.class, long.class, MemorySegment.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, MemorySegment c, MemorySegment d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(MemorySegment a, long b, MemorySegment c, MemorySegment d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (MemorySegment, MemorySegment, int, long)int}. */
    public static final class PPIJ extends CuFunction {
        PPIJ(String name) {
            super(name, MemorySegment.class, MemorySegment.class, int.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, MemorySegment b, int c, long d) {
            try {
                return (int) handle().invokeExact(a, b, c, d);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         */
        public void check(MemorySegment a, MemorySegment b, int c, long d) {
            checkResult(call(a, b, c, d));
        }
    }

    /** A function of Java type {@code (long, long, long, long, long)int}. */
    public static final class JJJJJ extends CuFunction {
        JJJJJ(String name) {
            super(name, long.class, long.class, long.class, long.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @param e the C function's fifth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(long a, long b, long c, long d, long e) {
            try {
                return (int) handle().invokeExact(a, b, c, d, e);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @param e the C function's fifth argument
         */
        public void check(long a, long b, long c, long d, long e) {
            checkResult(call(a, b, c, d, e));
        }
    }

    /** A function of Java type {@code (MemorySegment, long, long, long, long)int}. */
    public static final class PJJJJ extends CuFunction {
        PJJJJ(String name) {
            super(name, MemorySegment.class, long.class, long.class, long.class, long.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @param e the C function's fifth argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, long b, long c, long d, long e) {
            try {
                return (int) handle().invokeExact(a, b, c, d, e);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @param e the C function's fifth argument
         */
        public void check(MemorySegment a, long b, long c, long d, long e) {
            checkResult(call(a, b, c, d, e));
        }
    }

    /** A function of Java type {@code (MemorySegment, int x 7, MemorySegment x 3)int}: a kernel launch. */
    public static final class PIIIIIIIPPP extends CuFunction {
        PIIIIIIIPPP(String name) {
            super(name, MemorySegment.class, int.class, int.class, int.class, int.class, int.class, int.class,
                    int.class, MemorySegment.class, MemorySegment.class, MemorySegment.class);
        }

        /**
         * Calls the function without checking its result.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @param e the C function's fifth argument
         * @param f the C function's sixth argument
         * @param g the C function's seventh argument
         * @param h the C function's eighth argument
         * @param i the C function's ninth argument
         * @param j the C function's tenth argument
         * @param k the C function's eleventh argument
         * @return the {@code CUresult} the function returned
         */
        public int call(MemorySegment a, int b, int c, int d, int e, int f, int g, int h, MemorySegment i,
                        MemorySegment j, MemorySegment k) {
            try {
                return (int) handle().invokeExact(a, b, c, d, e, f, g, h, i, j, k);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        /**
         * Calls the function; throws its {@linkplain #failure failure} unless it returns {@code CUDA_SUCCESS}.
         *
         * @param a the C function's first argument
         * @param b the C function's second argument
         * @param c the C function's third argument
         * @param d the C function's fourth argument
         * @param e the C function's fifth argument
         * @param f the C function's sixth argument
         * @param g the C function's seventh argument
         * @param h the C function's eighth argument
         * @param i the C function's ninth argument
         * @param j the C function's tenth argument
         * @param k the C function's eleventh argument
         */
        public void check(MemorySegment a, int b, int c, int d, int e, int f, int g, int h, MemorySegment i,
                          MemorySegment j, MemorySegment k) {
            checkResult(call(a, b, c, d, e, f, g, h, i, j, k));
        }
    }
}
