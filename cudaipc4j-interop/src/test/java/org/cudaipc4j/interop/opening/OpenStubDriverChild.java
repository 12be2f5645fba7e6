package org.cudaipc4j.interop.opening;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.ExportHolders;
import org.cudaipc4j.coord.fd.PidFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.interop.torch.CounterFiles;
import org.cudaipc4j.interop.torch.TorchCounterFile;
import org.cudaipc4j.interop.torch.TorchLeases;
import org.cudaipc4j.interop.torch.TorchReader;
import org.cudaipc4j.interop.torch.TorchShare;
import org.cudaipc4j.testing.OpenDescriptors;

/**
 * {@link Descriptors#open} on the stub driver, for {@link DescriptorsStubDriverTest}: {@code args[0]} is the case
 * ({@code exports}, {@code pidfd} or {@code torch}, the last with the counter file's name in {@code args[1]}); one
 * line per fact the test checks. The stub's device has UUID {@link #STUB_GPU}; its copies to the host read zeros.
 */
public final class OpenStubDriverChild {
    /** {@code cuDeviceGetUuid_v2} of the stub: bytes 0 to 15. */
    static final UUID STUB_GPU = new UUID(0x0001_0203_0405_0607L, 0x0809_0a0b_0c0d_0e0fL);
    private static final long PID = ProcessHandle.current().pid();

    private OpenStubDriverChild() {}

    public static void main(String[] args) {
        Cuda.init();
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            Stream stream = Stream.create(ctx, true);
            int resources = ctx.openResources();
            switch (args[0]) {
                case "exports" -> exports(ctx, stream);
                case "pidfd" -> pidfd(ctx, stream);
                case "torch" -> torch(ctx, stream, args[1]);
                default -> throw new IllegalArgumentException(args[0]);
            }
            System.out.println("resources left " + (ctx.openResources() - resources));
        }
    }

    /** 64 bytes from {@code first} on, none zero (the stub refuses a handle of zeros, as the driver does). */
    static byte[] bytes(int first) {
        byte[] b = new byte[64];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (first + i);
        }
        return b;
    }

    /** Legacy with a holder table, a tensor and an event; pool and VMM with given descriptors; 0 bytes; a bare handle. */
    private static void exports(Context ctx, Stream stream) {
        try (ExportHolders table = ExportHolders.create(4)) {
            Descriptor d = Descriptor.legacy(STUB_GPU, 4096, new Descriptor.Exporter(PID, 0, 11), bytes(1))
                    .withTensor(TensorLayout.contiguous(DType.BFLOAT16, 32, 64))
                    .withEvent(new Descriptor.Event(bytes(3), true)).withHolders(table.name());
            OpenPhases phases = new OpenPhases();
            try (OpenedTensor t = Descriptors.open(d, ctx, stream, OpenOptions.defaults().withPhases(phases))) {
                System.out.println("legacy " + t.bytes() + " " + t.layout().equals(d.tensor()) + " held "
                        + table.holders(11).equals(List.of(PID)) + " zeros " + Arrays.equals(t.read(0, 64),
                        new byte[64]));
                System.out.println("legacy phases " + phases.byCode().keySet());
            }
            System.out.println("legacy closed, held " + table.holders(11));
        }
        int fd = memfd();
        try {
            OpenPhases phases = new OpenPhases();
            Descriptor pool = Descriptor.poolFd(STUB_GPU, 4096, new Descriptor.Exporter(PID, 0, 12), 3, bytes(5));
            try (OpenedTensor t = Descriptors.open(pool, ctx, stream,
                    OpenOptions.defaults().withFds(fd).withPhases(phases))) {
                System.out.println("pool " + t.bytes() + " " + t.layout() + " phases " + phases.byCode().keySet());
            }
            phases.clear();
            Descriptor vmm = Descriptor.vmmFd(STUB_GPU, 2 << 20, new Descriptor.Exporter(PID, 0, 13));
            try (OpenedTensor t = Descriptors.open(vmm, ctx, stream,
                    OpenOptions.defaults().withFds(fd).withPhases(phases))) {
                System.out.println("vmm " + t.bytes() + " phases " + phases.byCode().keySet());
            }
            try (OpenedTensor t = Descriptors.open(Descriptor.vmmFd(STUB_GPU, 0, new Descriptor.Exporter(PID, 0, 14)),
                    ctx, stream, OpenOptions.defaults().withFds(fd))) {
                System.out.println("empty " + t.bytes() + " at " + t.address());
            }
            System.out.println("given descriptor still open " + (LibcFiles.fcntlGetFd(fd).value() >= 0));
        } finally {
            Libc.close(fd);
        }
        byte[] c = new byte[66];
        c[0] = 2;
        c[1] = 'c';
        System.arraycopy(bytes(7), 0, c, 2, 64);
        try (OpenedTensor t = Descriptors.openable(TorchHandle.parse(c)).open(ctx, stream)) {
            System.out.println("bare " + t.bytes() + " " + t.layout());
        }
    }

    /** A pool export whose descriptor is taken from its exporter (here this process) by number. */
    private static void pidfd(Context ctx, Stream stream) {
        int fd = memfd();
        try {
            try {
                PidFd.take(PID, fd).close();
            } catch (CoordinationException e) {
                System.out.println("refused " + e.getMessage()); // the test says why it skips
                return;
            }
            Descriptor pool = Descriptor.poolFd(STUB_GPU, 4096, new Descriptor.Exporter(PID, 0, 12), 3, bytes(5))
                    .withFdNumbers(fd);
            Descriptors.open(pool, ctx, stream, OpenOptions.defaults()).close(); // the JVM's own lazy files opened
            long before = OpenDescriptors.count();
            OpenPhases phases = new OpenPhases();
            try (OpenedTensor t = Descriptors.open(pool, ctx, stream, OpenOptions.defaults().withPhases(phases))) {
                System.out.println("pool by number " + t.bytes() + " phases " + phases.byCode().keySet()
                        + " descriptors kept " + (OpenDescriptors.count() - before));
            }
            System.out.println("closed, descriptors kept " + (OpenDescriptors.count() - before));
        } finally {
            Libc.close(fd);
        }
    }

    /** Shares of one storage, slots 0 to 3 of {@code counter}: through an open's own reader, then the caller's. */
    private static void torch(Context ctx, Stream stream, String counter) {
        try (OpenedTensor t = Descriptors.open(share(counter, 0), ctx, stream, OpenOptions.defaults())) {
            System.out.println("own reader " + t.bytes() + " hit " + t.cacheHit() + " slots " + slots(counter));
        }
        System.out.println("own reader closed, slots " + slots(counter));
        try (TorchLeases leases = TorchLeases.start()) {
            TorchReader reader = new TorchReader(ctx, leases);
            OpenPhases phases = new OpenPhases();
            OpenOptions options = OpenOptions.defaults().withTorchReader(reader);
            try (OpenedTensor a = Descriptors.open(share(counter, 1), ctx, stream, options.withPhases(phases));
                    OpenedTensor b = Descriptors.open(share(counter, 2), ctx, stream, options)) {
                System.out.println("caller's reader hits " + a.cacheHit() + " " + b.cacheHit() + " same "
                        + (a.address() == b.address()) + " blocks " + reader.mappedBlocks() + " slots "
                        + slots(counter));
                System.out.println("phases " + phases.byCode().keySet());
            }
            System.out.println("caller's reader closed, blocks " + reader.mappedBlocks() + " slots "
                    + slots(counter));
        }
    }

    /** Slot {@code slot}'s share of one 4096-byte storage at offset 0 of a 'c' block, with an event to wait on. */
    private static Descriptor share(String counter, int slot) {
        byte[] c = new byte[66];
        c[0] = 2;
        c[1] = 'c';
        System.arraycopy(bytes(9), 0, c, 2, 64);
        return new TorchShare(0, TorchHandle.parse(c), 4096, 0, counter, slot, bytes(3), true,
                TensorLayout.contiguous(DType.UINT8, 4096)).toDescriptor(STUB_GPU, new Descriptor.Exporter(PID, 0, 1));
    }

    private static String slots(String counter) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            sb.append(CounterFiles.slot(TorchCounterFile.DEFAULT_DIRECTORY, counter, i));
        }
        return sb.toString();
    }

    private static int memfd() {
        Libc.Result fd = LibcFiles.memfdCreate("stub-export");
        if (fd.value() < 0) {
            throw new IllegalStateException("memfd_create failed: " + Libc.strerror(fd.errno()));
        }
        return fd.value();
    }
}
