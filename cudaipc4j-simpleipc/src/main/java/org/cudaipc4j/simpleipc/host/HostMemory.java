package org.cudaipc4j.simpleipc.host;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.simpleipc.backend.BackendException;

/**
 * A simulated device buffer as this process maps it: a named shared-memory segment (legacy handles, found by name),
 * or an anonymous memory file passed by descriptor ({@code --ipc vmm|pool}, as CUDA passes VMM and pool memory).
 */
final class HostMemory implements AutoCloseable {
    private final String name;
    private final MemorySegment memory;
    private final AutoCloseable unmap;

    private HostMemory(String name, MemorySegment memory, AutoCloseable unmap) {
        this.name = name;
        this.memory = memory;
        this.unmap = unmap;
    }

    static HostMemory of(SharedSegment segment) {
        return new HostMemory(segment.name(), segment.memory(), segment);
    }

    /** Maps {@code size} bytes of the memory file {@code fd} (the caller keeps owning {@code fd}). */
    static HostMemory map(String name, int fd, long size) {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            if (ch.size() < size) {
                throw new BackendException("the memory file of " + name + " has " + ch.size() + " bytes, " + size
                        + " expected");
            }
            return new HostMemory(name, ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            if (e instanceof BackendException b) {
                throw b;
            }
            throw new BackendException("cannot map the memory file of " + name + " (descriptor " + fd + "): "
                    + e.getMessage(), e);
        }
    }

    /** A new memory file of {@code size} bytes, mapped here; the returned descriptor is owned by the caller. */
    static HostMemory create(String name, long size, OwnedFd[] descriptor) {
        OwnedFd fd = OwnedFd.anonymousMemory(name, size);
        try {
            HostMemory m = map(name, fd.value(), size);
            descriptor[0] = fd;
            return m;
        } catch (RuntimeException e) {
            fd.close();
            throw e;
        }
    }

    String name() {
        return name;
    }

    long size() {
        return memory.byteSize();
    }

    MemorySegment memory() {
        return memory;
    }

    @Override
    public void close() {
        try {
            unmap.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new BackendException("cannot unmap " + name + ": " + e.getMessage(), e);
        }
    }
}
