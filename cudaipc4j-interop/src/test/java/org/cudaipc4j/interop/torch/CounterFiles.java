package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;

/** Counter files laid out as torch's producer makes them, for tests without torch (of this package and others). */
public final class CounterFiles {
    private CounterFiles() {}

    /**
     * Makes {@code /torch_<pid>_<random>_0} in {@code dir}: the producer's process count 1 at byte 0 and slots
     * {@code 0..held-1} at 1, as {@code _share_cuda_()} leaves them. Returns the name torch would send.
     */
    public static String create(Path dir, int held) {
        String name = "/torch_" + ProcessHandle.current().pid() + "_"
                + Integer.toUnsignedString(ThreadLocalRandom.current().nextInt()) + "_0";
        ByteBuffer b = ByteBuffer.allocate((int) TorchCounterFile.FILE_BYTES).order(ByteOrder.nativeOrder());
        b.putInt(0, 1);
        for (int i = 0; i < held; i++) {
            b.putLong(TorchCounterFile.HEADER_BYTES + 8 * i, 1);
        }
        try {
            Path p = dir.resolve(name.substring(1));
            Files.write(p, b.array());
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return name;
    }

    /**
     * Gives {@code slot} back as torch's reader does ({@code THPStorage_releaseIPCCounter} and the deleter of
     * {@code THPStorage_newSharedCuda}): map the file without creating it, {@code refcount++} on the int at 0
     * ({@code RefcountedMapAllocator::initializeAlloc}), {@code -= 1} on the slot, then {@code --refcount == 0}
     * unlinks the file ({@code RefcountedMapAllocator::close}). A missing file is ignored, as torch ignores it.
     */
    static void releaseAsTorch(Path dir, String name, long slot) {
        Path p = dir.resolve(name.substring(1));
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment m = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0,
                    TorchCounterFile.FILE_BYTES, arena);
            java.lang.invoke.VarHandle count = java.lang.foreign.ValueLayout.JAVA_INT.varHandle();
            count.getAndAdd(m, 0L, 1);
            long at = TorchCounterFile.HEADER_BYTES + 8 * slot;
            m.set(java.lang.foreign.ValueLayout.JAVA_LONG, at, m.get(java.lang.foreign.ValueLayout.JAVA_LONG, at) - 1);
            if ((int) count.getAndAdd(m, 0L, -1) - 1 == 0) {
                Files.delete(p);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // "Exception expected if producer process terminated before consumer released data"
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static long slot(Path dir, String name, int slot) {
        return read(dir, name).getLong(TorchCounterFile.HEADER_BYTES + 8 * slot);
    }

    /** {@return every slot of the file, read at once} */
    public static long[] slots(Path dir, String name) {
        java.nio.LongBuffer b = read(dir, name).position(TorchCounterFile.HEADER_BYTES).slice()
                .order(ByteOrder.nativeOrder()).asLongBuffer();
        long[] out = new long[TorchCounterFile.SLOTS];
        b.get(out);
        return out;
    }

    static int processCount(Path dir, String name) {
        return read(dir, name).getInt(0);
    }

    private static ByteBuffer read(Path dir, String name) {
        try {
            return ByteBuffer.wrap(Files.readAllBytes(dir.resolve(name.substring(1)))).order(ByteOrder.nativeOrder());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
