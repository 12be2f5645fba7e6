package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.cudaipc4j.base.Layouts;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.ModuleCalls;

/**
 * A kernel ({@code CUfunction}) of a {@link CudaModule}, valid while the module is open.
 *
 * <p>Launch arguments of any size and alignment ({@link KernelArg}) are packed into a per-thread scratch block that
 * is reused: {@code cuLaunchKernel} copies the argument values before it returns (as the runtime's {@code <<<>>>}
 * relies on with stack arguments), so a launch allocates nothing native. Launches may come from any thread whose
 * current context is the module's.
 */
public final class Kernel {
    /** The most arguments one launch can take. */
    public static final int MAX_ARGS = 64;
    /** The largest alignment an argument may ask for. */
    public static final int MAX_ALIGNMENT = 64;

    private static final long POINTER = 8;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(() -> new Scratch(1024));

    private final CudaModule module;
    private final String name;
    private final MemorySegment handle;
    private final String launchCall;

    Kernel(CudaModule module, String name, MemorySegment handle) {
        this.module = module;
        this.name = name;
        this.handle = handle;
        this.launchCall = CudaFunction.cuLaunchKernel.name() + "(" + name + ")";
    }

    /** {@code void* params[MAX_ARGS]} and the argument values they point at, grown when a launch needs more. */
    private static final class Scratch {
        final MemorySegment params = Arena.ofAuto().allocate(MAX_ARGS * POINTER, POINTER);
        MemorySegment values;

        Scratch(long valueBytes) {
            values = Arena.ofAuto().allocate(valueBytes, MAX_ALIGNMENT);
        }

        /** Writes {@code args} and points {@code params} at them. */
        MemorySegment pack(KernelArg[] args) {
            long needed = 0;
            for (KernelArg a : args) {
                needed = Layouts.alignUp(needed, a.alignment()) + a.size();
            }
            if (needed > values.byteSize()) {
                values = Arena.ofAuto().allocate(Math.max(needed, 2 * values.byteSize()), MAX_ALIGNMENT);
            }
            long base = values.address();
            long offset = 0;
            for (int i = 0; i < args.length; i++) {
                KernelArg a = args[i];
                offset = Layouts.alignUp(offset, a.alignment());
                a.writeTo(values, offset);
                params.setAtIndex(JAVA_LONG, i, base + offset);
                offset += a.size();
            }
            return params;
        }
    }

    /** {@return the kernel's name in its module} */
    public String name() {
        return name;
    }

    /** {@return the module the kernel was loaded from} */
    public CudaModule module() {
        return module;
    }

    /**
     * Enqueues a 1-D launch of {@code gridX} blocks of {@code blockX} threads on {@code stream}.
     *
     * @param gridX blocks in the grid
     * @param blockX threads per block
     * @param sharedBytes dynamic shared memory per block, in bytes
     * @param stream the stream to launch on
     * @param args the kernel's parameters
     */
    public void launch(int gridX, int blockX, int sharedBytes, Stream stream, KernelArg... args) {
        launch(Dim3.of(gridX), Dim3.of(blockX), sharedBytes, stream, args);
    }

    /**
     * Enqueues a launch on {@code stream} ({@code cuLaunchKernel}); {@code args} must match the kernel's
     * parameters in number, order and size.
     *
     * @param grid the grid's size in blocks
     * @param block the block's size in threads
     * @param sharedBytes dynamic shared memory per block, in bytes
     * @param stream the stream to launch on
     * @param args the kernel's parameters
     */
    public void launch(Dim3 grid, Dim3 block, int sharedBytes, Stream stream, KernelArg... args) {
        module.requireOpen();
        if (args.length > MAX_ARGS) {
            throw new IllegalArgumentException(name + ": at most " + MAX_ARGS + " arguments, got " + args.length);
        }
        MemorySegment params = SCRATCH.get().pack(args);
        Cu.check(launchCall, ModuleCalls.cuLaunchKernel(handle, grid.x(), grid.y(), grid.z(),
                block.x(), block.y(), block.z(), sharedBytes, stream.handle(), params, MemorySegment.NULL));
    }

    /**
     * Blocks of {@code blockSize} threads that fit on one multiprocessor at once.
     *
     * @param blockSize threads per block
     * @param sharedBytes dynamic shared memory per block, in bytes
     * @return how many such blocks fit
     */
    public int maxActiveBlocksPerMultiprocessor(int blockSize, long sharedBytes) {
        module.requireOpen();
        module.context().makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            ModuleCalls.occupancyMaxActiveBlocksPerMultiprocessor(out, handle, blockSize, sharedBytes);
            return out.get(JAVA_INT, 0);
        }
    }

    /**
     * The grid that fills {@code device} once at {@code blockSize} threads per block: active blocks per
     * multiprocessor times the multiprocessor count (simpleIPC's rule).
     *
     * @param device the device the kernel runs on
     * @param blockSize threads per block
     * @return the number of blocks
     * @throws IllegalArgumentException when no block of that size fits
     */
    public int occupancyGrid(Device device, int blockSize) {
        int perSm = maxActiveBlocksPerMultiprocessor(blockSize, 0);
        if (perSm < 1) {
            throw new IllegalArgumentException(name + " cannot run blocks of " + blockSize + " threads");
        }
        return perSm * device.multiprocessorCount();
    }

    /**
     * A {@code CUfunction_attribute} ({@code cuFuncGetAttribute}).
     *
     * @param attribute the attribute to read
     * @return its value for this kernel
     */
    public int attribute(FunctionAttribute attribute) {
        module.requireOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            ModuleCalls.funcGetAttribute(out, attribute.code(), handle);
            return out.get(JAVA_INT, 0);
        }
    }

    @Override
    public String toString() {
        return "kernel " + name;
    }
}
