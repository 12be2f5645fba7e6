package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;

/** Counter files laid out as torch's producer makes them, for tests without torch. */
final class CounterFiles {
    private CounterFiles() {}

    /**
     * Makes {@code /torch_<pid>_<random>_0} in {@code dir}: the producer's process count 1 at byte 0 and slots
     * {@code 0..held-1} at 1, as {@code _share_cuda_()} leaves them. Returns the name torch would send.
     */
    static String create(Path dir, int held) {
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

    static long slot(Path dir, String name, int slot) {
        return read(dir, name).getLong(TorchCounterFile.HEADER_BYTES + 8 * slot);
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
