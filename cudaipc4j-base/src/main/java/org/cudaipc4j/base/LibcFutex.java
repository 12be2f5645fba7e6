package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * Futexes on memory shared between processes (not private futexes), through libc's {@code syscall}: a waiter sleeps
 * in the kernel until a writer wakes it. Linux on x86-64 and AArch64; see {@link Libc}.
 */
public final class LibcFutex {
    private static final long SYS_FUTEX = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 202;
        case "aarch64" -> 98;
        default -> -1;
    };
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;
    private static final boolean FUTEX = SYS_FUTEX > 0 && System.getProperty("os.name").equals("Linux")
            && !BaseSettings.NO_FUTEX.get();

    private LibcFutex() {}

    /** {@return true where {@link #futexWait} and {@link #futexWakeAll} work (Linux on x86-64 and AArch64)} */
    public static boolean hasFutex() {
        return FUTEX;
    }

    /**
     * Sleeps while the int at {@code word} (in memory shared between processes, so not a private futex) equals
     * {@code expected}, for at most {@code timeoutNanos}. Returns early on a wake-up, a signal, or when the word
     * already differs; callers re-check the word.
     *
     * @param word the futex word, in native memory
     * @param expected the value to sleep on
     * @param timeoutNanos the longest sleep
     * @param timespec 16 bytes of native scratch memory for the timeout
     */
    public static void futexWait(MemorySegment word, int expected, long timeoutNanos, MemorySegment timespec) {
        timespec.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        timespec.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        long ignored = LibcCalls.syscall(CallScratch.errno(), SYS_FUTEX, word.address(), FUTEX_WAIT, expected,
                timespec.address(), 0L, 0L);
    }

    /**
     * Wakes every process sleeping in {@link #futexWait} on {@code word}.
     *
     * @param word the futex word, in native memory
     */
    public static void futexWakeAll(MemorySegment word) {
        long ignored = LibcCalls.syscall(CallScratch.errno(), SYS_FUTEX, word.address(), FUTEX_WAKE,
                Integer.MAX_VALUE, 0L, 0L, 0L);
    }
}
