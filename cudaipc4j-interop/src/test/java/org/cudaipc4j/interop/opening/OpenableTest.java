package org.cudaipc4j.interop.opening;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.InteropException;
import org.cudaipc4j.interop.TorchHandle;
import org.junit.jupiter.api.Test;

/**
 * What {@link Descriptors#openable} refuses, before any driver is touched: each refusal is the library's exception
 * with one line that says why and what to give instead; file descriptors that do not match are bad arguments.
 */
class OpenableTest {
    private static final UUID GPU = UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");
    private static final Descriptor.Exporter EX = new Descriptor.Exporter(4242, 0, 9);
    private static final String NO_FD = " descriptor with posix_fd needs its file descriptor, which travels over the"
            + " exporter's descriptor socket, not on a command line; a descriptor with fd_numbers is opened through"
            + " pidfd_getfd";

    private static byte[] bytes(int first) {
        byte[] b = new byte[64];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (first + i);
        }
        return b;
    }

    private static Descriptor pool(Descriptor.Exporter exporter) {
        return Descriptor.poolFd(GPU, 4096, exporter, 7, bytes(1));
    }

    private static long ownPidNamespace() throws Exception {
        String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        return Long.parseLong(link.replaceAll("\\D", ""));
    }

    @Test
    void aPosixFdExportWithoutItsDescriptorsIsRefusedInOneLine() {
        for (Descriptor d : List.of(pool(EX), Descriptor.vmmFd(GPU, 2 << 20, EX))) {
            OpenRefusedException e = assertThrows(OpenRefusedException.class,
                    () -> Descriptors.openable(d, OpenOptions.defaults()));
            assertEquals("a " + d.kind().code() + NO_FD, e.getMessage());
            assertEquals(InteropException.class, e.getClass().getSuperclass(), "the library's exception root");
            Descriptors.openable(d, OpenOptions.defaults().withFds(5)); // received over the socket
            Descriptors.openable(d.withFdNumbers(5), OpenOptions.defaults()); // taken by number
        }
    }

    @Test
    void fdNumbersOfAnExporterInAnotherPidNamespaceAreRefusedButItsGivenDescriptorsAreNot() throws Exception {
        long own = ownPidNamespace();
        Descriptor foreign = pool(new Descriptor.Exporter(4242, own + 1, 9)).withFdNumbers(5);
        assertEquals("the exporter (pid 4242) runs in another PID namespace (" + (own + 1) + "), where its"
                + " fd_numbers cannot be taken with pidfd_getfd; receive the descriptor over the exporter's socket",
                assertThrows(OpenRefusedException.class, () -> Descriptors.openable(foreign, OpenOptions.defaults()))
                        .getMessage());
        Descriptors.openable(foreign, OpenOptions.defaults().withFds(5));
        Descriptors.openable(pool(new Descriptor.Exporter(4242, own, 9)).withFdNumbers(5), OpenOptions.defaults());
        Descriptors.openable(pool(new Descriptor.Exporter(4242, 0, 9)).withFdNumbers(5), OpenOptions.defaults());
    }

    @Test
    void aBareExpandableHandleIsRefusedAndACudaMallocOneIsNot() {
        ByteBuffer e = ByteBuffer.allocate(2 + 24 + 4).order(ByteOrder.LITTLE_ENDIAN);
        e.put((byte) 2).put((byte) 'e').putInt(77).putInt(0).putLong(2 << 20).putLong(1).putInt(40);
        assertEquals("a bare 'e' handle does not say which bytes of its chunks are the storage; give the torch"
                + " descriptor (cudaipc4j.share(tensor) in Python), which the torch reader opens",
                assertThrows(OpenRefusedException.class, () -> Descriptors.openable(TorchHandle.parse(e.array())))
                        .getMessage());
        byte[] c = new byte[66];
        c[0] = 2;
        c[1] = 'c';
        System.arraycopy(bytes(1), 0, c, 2, 64);
        Descriptors.openable(TorchHandle.parse(c));
        Descriptors.openable(TorchHandle.parse(bytes(1))); // raw, as torch 2.4 and before wrote it
    }

    @Test
    void fileDescriptorsThatDoNotMatchTheDescriptorAreBadArguments() {
        Descriptor legacy = Descriptor.legacy(GPU, 4096, EX, bytes(1));
        assertEquals("the legacy descriptor says 0 fd(s), 1 given", assertThrows(IllegalArgumentException.class,
                () -> Descriptors.openable(legacy, OpenOptions.defaults().withFds(3))).getMessage());
        assertEquals("the pool descriptor says 1 fd(s), 2 given", assertThrows(IllegalArgumentException.class,
                () -> Descriptors.openable(pool(EX), OpenOptions.defaults().withFds(3, 4))).getMessage());
        assertEquals("the torch descriptor says 0 fd(s), 1 given", assertThrows(IllegalArgumentException.class,
                () -> Descriptors.openable(torch("/torch_1_2_0"), OpenOptions.defaults().withFds(3))).getMessage());
        // an expandable segment's chunks, received over the producer's socket: one fd per chunk of its handle
        Descriptor e = expandable(2);
        Descriptors.openable(e, OpenOptions.defaults().withFds(3, 4));
        assertEquals("the torch descriptor says 2 fd(s), 1 given", assertThrows(IllegalArgumentException.class,
                () -> Descriptors.openable(e, OpenOptions.defaults().withFds(3))).getMessage());
        assertEquals("the vmm descriptor says 0 fd(s), 1 given", assertThrows(IllegalArgumentException.class,
                () -> Descriptors.openable(Descriptor.vmmFabric(GPU, 2 << 20, EX, bytes(1)),
                        OpenOptions.defaults().withFds(3))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> OpenOptions.defaults().withFds(-1));
    }

    @Test
    void torchFieldsThatTorchWouldNeverSendAreBadArguments() {
        Descriptors.openable(torch("/torch_1_2_0"), OpenOptions.defaults());
        assertThrows(IllegalArgumentException.class,
                () -> Descriptors.openable(torch("/etc-passwd"), OpenOptions.defaults()));
    }

    @Test
    void optionsAreValuesThatCopyTheirDescriptors() {
        int[] fds = {3, 4};
        OpenOptions o = OpenOptions.defaults().withFds(fds);
        fds[0] = 9;
        assertArrayEquals(new int[] {3, 4}, o.fds());
        o.fds()[1] = 9;
        assertArrayEquals(new int[] {3, 4}, o.fds());
        assertNull(OpenOptions.defaults().fds(), "none given: taken by number");
        assertNull(o.withPhases(null).phases());
        assertEquals(Arrays.toString(new int[] {3, 4}), Arrays.toString(o.withPhases(null).fds()));
    }

    /** A torch share of a 'c' handle naming {@code counter} as its counter file. */
    /** A torch share of an expandable segment of {@code chunks} 2 MiB chunks (fds 45 on) of pid 459. */
    private static Descriptor expandable(int chunks) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(2 + 24 + 4 * chunks)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN).put((byte) 2).put((byte) 'e').putInt(459).putInt(0)
                .putLong(2L << 20).putLong(chunks);
        for (int i = 0; i < chunks; i++) {
            b.putInt(45 + i);
        }
        return new Descriptor(Descriptor.Kind.TORCH, GPU, 4096, EX, null, null, null, 0, null, -1, null,
                new Descriptor.Torch(b.array(), 4096, 0, "/torch_1_2_0", 0, 0), null, null);
    }

    private static Descriptor torch(String counter) {
        byte[] c = new byte[66];
        c[0] = 2;
        c[1] = 'c';
        System.arraycopy(bytes(1), 0, c, 2, 64);
        return new Descriptor(Descriptor.Kind.TORCH, GPU, 4096, EX, null, null, null, 0, null, -1, null,
                new Descriptor.Torch(c, 4096, 0, counter, 0, 0), null, null);
    }
}
