package org.cudaipc4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's address space as the readers' GPU tests bound it: {@code VmSize} of {@code /proc/self/status}, which
 * counts every reserved range (a CUDA virtual-address reservation too, mapped or not), and the bound a reader must
 * stay within: its size before the first open, plus 1.1 times the bytes it maps at that moment, plus 1 GiB for the
 * rest of the process (threads, the allocators' arenas). A reader that reserved a range per import sized by the
 * device's memory, as torch's reader of expandable segments does, is over it at the first import.
 */
public final class AddressSpace {
    /** What the bound allows beside the mappings: 1 GiB. */
    public static final long SLACK = 1L << 30;

    private AddressSpace() {}

    /**
     * {@return this process's {@code VmSize}, in bytes}
     *
     * @throws UncheckedIOException when {@code /proc/self/status} cannot be read
     * @throws IllegalStateException when it has no {@code VmSize} line (not Linux)
     */
    public static long vmSize() {
        try {
            return vmSize(Files.readString(Path.of("/proc/self/status")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/status", e);
        }
    }

    /**
     * {@return the {@code VmSize} of a {@code /proc/<pid>/status} text, in bytes}
     *
     * @param status the file's text
     * @throws IllegalStateException when there is no {@code VmSize:} line, or it is not a count of kB
     */
    public static long vmSize(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("VmSize:")) {
                String[] f = line.substring("VmSize:".length()).trim().split("\\s+");
                if (f.length == 2 && f[1].equals("kB") && f[0].matches("[0-9]{1,15}")) {
                    return Long.parseLong(f[0]) * 1024;
                }
                throw new IllegalStateException("VmSize is not a count of kB: '" + line + "'");
            }
        }
        throw new IllegalStateException("no VmSize line in the status text (is this Linux?)");
    }

    /**
     * {@return the most address space a reader may hold: {@code before + ceil(1.1 * mapped) + SLACK}}
     *
     * @param before the process's {@code VmSize} before its first open
     * @param mapped the bytes it maps now
     * @throws IllegalArgumentException for a negative size, or a bound beyond a 64-bit count
     */
    public static long bound(long before, long mapped) {
        if (before < 0 || mapped < 0) {
            throw new IllegalArgumentException("sizes are not negative, got before " + before + " and mapped "
                    + mapped);
        }
        try {
            return Math.addExact(Math.addExact(before, Math.addExact(mapped, mapped / 10 + (mapped % 10 == 0 ? 0
                    : 1))), SLACK);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("the bound of before " + before + " and mapped " + mapped
                    + " bytes overflows a 64-bit count");
        }
    }

    /**
     * {@return by how much {@code vmSize} exceeds {@link #bound}: positive when over it}
     *
     * @param before the process's {@code VmSize} before its first open
     * @param mapped the bytes it maps now
     * @param vmSize its {@code VmSize} now
     */
    public static long excess(long before, long mapped, long vmSize) {
        return vmSize - bound(before, mapped);
    }

    /** {@code bytes} in GiB with two decimals, for messages. */
    public static String gib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }
}
