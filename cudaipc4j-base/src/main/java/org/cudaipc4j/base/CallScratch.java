package org.cudaipc4j.base;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A small native buffer per thread for what a native call takes by value or through a pointer, its out-parameters
 * and libc's captured errno, so that a frequent call (an IPC handle's open, a pidfd's poll) makes no arena. An arena
 * per call costs microseconds of Java work until the JIT has compiled it, and a reader opens one share per tensor,
 * mostly in a fresh process.
 *
 * <p>A caller writes its arguments, makes one native call and reads what it returned before it makes another call
 * that uses the scratch on the same thread. The libc calls ({@link Libc} and its areas) keep their own arguments
 * and errno in bytes of their own, so a caller's arguments survive a libc call. The buffer is {@value #BYTES} bytes,
 * 16-byte aligned, and is freed with its thread.
 */
public final class CallScratch {
    /** Its size. */
    public static final long BYTES = 256;
    /** The bytes a caller's arguments and out-parameters may use, from offset 0: two 64-byte IPC handles and more. */
    public static final long ARGUMENT_BYTES = 160;
    /** The bytes after them that the libc calls keep for their own small arguments. */
    static final long LIBC_BYTES = 32;
    /** The bytes at the end that the libc calls keep for the captured errno state. */
    static final long ERRNO_BYTES = BYTES - ARGUMENT_BYTES - LIBC_BYTES;

    /**
     * A thread's buffer, sliced once: a slice made per call runs the segment's bounds and layout checks, which cost
     * microseconds a call until the JIT has compiled them, in the fresh process a reader mostly is.
     */
    private record Slices(MemorySegment arguments, MemorySegment libc, MemorySegment errno) {}

    // A subclass, not withInitial(lambda): every process of the tool loads this class, and a lambda costs start-up.
    private static final ThreadLocal<Slices> SEGMENT = new ThreadLocal<>() {
        @Override
        protected Slices initialValue() {
            MemorySegment all = Arena.ofAuto().allocate(BYTES, 16);
            return new Slices(all.asSlice(0, ARGUMENT_BYTES), all.asSlice(ARGUMENT_BYTES, LIBC_BYTES),
                    all.asSlice(ARGUMENT_BYTES + LIBC_BYTES, ERRNO_BYTES));
        }
    };

    private CallScratch() {}

    /** {@return this thread's scratch for arguments, {@link #ARGUMENT_BYTES} long, its contents left from before} */
    public static MemorySegment get() {
        return SEGMENT.get().arguments();
    }

    /** {@return this thread's scratch for the libc calls' own arguments, {@link #LIBC_BYTES} long} */
    static MemorySegment libc() {
        return SEGMENT.get().libc();
    }

    /** {@return this thread's scratch for the libc calls' captured errno, {@link #ERRNO_BYTES} long} */
    static MemorySegment errno() {
        return SEGMENT.get().errno();
    }
}
