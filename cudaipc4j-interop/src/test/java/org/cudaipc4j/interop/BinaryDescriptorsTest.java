package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.cudaipc4j.cuda.ipc.IpcPath;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.junit.jupiter.api.Test;

/** The JSON and binary forms describe the same allocation, both ways. */
class BinaryDescriptorsTest {
    private static final Descriptor.Exporter EX = new Descriptor.Exporter(4242, GoldenCases.NS, 9);

    @Test
    void everyPathRoundTripsThroughTheBinaryForm() {
        List<Descriptor> all = List.of(
                Descriptor.legacy(GoldenCases.GPU, 33554437, EX, GoldenCases.run(0)),
                Descriptor.vmmFd(GoldenCases.GPU, 2097152, EX),
                Descriptor.vmmFabric(GoldenCases.GPU, 4194304, EX, GoldenCases.run(0x40)),
                Descriptor.poolFd(GoldenCases.GPU, 1048576, EX, 7, GoldenCases.run(0x80)),
                Descriptor.poolFabric(GoldenCases.GPU, 1048576, EX, 8, GoldenCases.run(0x40), GoldenCases.run(0x80)));
        List<IpcPath> paths = List.of(IpcPath.LEGACY, IpcPath.VMM_FD, IpcPath.VMM_FABRIC, IpcPath.POOL_FD,
                IpcPath.POOL_FABRIC);
        for (int i = 0; i < all.size(); i++) {
            Descriptor d = all.get(i);
            SharedMemoryDescriptor s = BinaryDescriptors.toBinary(d);
            assertEquals(paths.get(i), s.path());
            assertEquals(d.bytes(), s.bytes());
            assertEquals(d.deviceUuid(), s.device());
            assertEquals(4242, s.exporterPid());
            assertEquals(9, s.exportId());
            assertEquals(paths.get(i).needsFileDescriptor() ? 1 : 0, s.fileDescriptorCount());
            SharedMemoryDescriptor again = SharedMemoryDescriptor.fromBytes(s.toBytes());
            assertArrayEquals(s.toBytes(), again.toBytes());
            assertEquals(d, BinaryDescriptors.fromBinary(again), paths.get(i).displayName());
        }
        assertArrayEquals(GoldenCases.run(0), BinaryDescriptors.toBinary(all.get(0)).handle());
    }

    @Test
    void aBinaryExportGetsItsHolderTableAndTensorInJson() {
        // What an exporter does to hand a binary export to a Python reader: the lease table and the tensor added.
        Descriptor fromBinary = BinaryDescriptors.fromBinary(BinaryDescriptors.toBinary(
                Descriptor.poolFd(GoldenCases.GPU, 1048576, EX, 7, GoldenCases.run(0x80))));
        TensorLayout layout = TensorLayout.contiguous(DType.BFLOAT16, 1024, 256);
        Descriptor d = fromBinary.withHolders("cudaipc4j-4242-0011223344556677-holders").withTensor(layout);
        assertEquals(new Descriptor.Exporter(4242, GoldenCases.NS, 9, "cudaipc4j-4242-0011223344556677-holders"),
                d.exporter());
        assertEquals(fromBinary.withTensor(layout), d.withHolders(null), "nothing else changed");
        assertEquals(d, DescriptorJson.fromJson(DescriptorJson.toJson(d)));
    }

    @Test
    void whatTheBinaryFormCannotCarryIsRefused() {
        Descriptor torch = GoldenCases.all().get("torch-c");
        assertThrows(IllegalArgumentException.class, () -> BinaryDescriptors.toBinary(torch));
        assertThrows(IllegalArgumentException.class,
                () -> BinaryDescriptors.toBinary(Descriptor.vmmFd(GoldenCases.GPU, 0, EX)));
    }
}
