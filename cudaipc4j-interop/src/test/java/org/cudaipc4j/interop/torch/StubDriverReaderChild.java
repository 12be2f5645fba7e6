package org.cudaipc4j.interop.torch;

import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.testing.OpenDescriptors;

/**
 * A torch reader on the stub driver, for {@link TorchReaderStubDriverTest}: {@code args} are the counter file's
 * name and the number of blocks, then for expandable segments ({@code 'e'}) the producer's pid and its chunks'
 * descriptors (two per block, {@link #CHUNK_BYTES} each), or {@code socket:<path>} to receive them with their fds
 * from the producer's descriptor socket and open with those instead of {@code pidfd_getfd}; without them the
 * blocks are legacy ({@code 'c'}). Each
 * block holds two storages of 4096 bytes (offsets 0 and 4096), each shared twice, slots {@code 4b .. 4b + 3}. Opens
 * every share, prints one line per fact the test checks, closes every view, prints {@code closed}.
 */
public final class StubDriverReaderChild {
    static final long STORAGE_BYTES = 4096;
    /** An expandable segment's chunk: the stub driver's granularity. */
    static final long CHUNK_BYTES = 2L << 20;

    private StubDriverReaderChild() {}

    /** Block {@code b}'s handle as torch writes it (version 2, 'c'); none of its 64 bytes zero. */
    static byte[] handle(int b) {
        byte[] h = new byte[2 + 64];
        h[0] = 2;
        h[1] = 'c';
        for (int i = 0; i < 64; i++) {
            h[2 + i] = (byte) ((b * 7 + i) % 251 + 1);
        }
        return h;
    }

    public static void main(String[] args) {
        String counter = args[0];
        int blocks = Integer.parseInt(args[1]);
        boolean expandable = args.length > 2;
        int producer = expandable ? Integer.parseInt(args[2]) : 0;
        // the chunks' numbers in the producer; over the socket, the fds received too (this reader's own)
        FdMessage received = expandable && args[3].startsWith("socket:") ? receiveChunks(args[3].substring(7)) : null;
        int[] chunks = expandable ? numbers(received == null ? args[3]
                : new String(received.payload(), java.nio.charset.StandardCharsets.US_ASCII)) : null;
        int[] given = received == null ? null : received.fds().stream().mapToInt(OwnedFd::value).toArray();
        TensorLayout layout = TensorLayout.contiguous(DType.UINT8, STORAGE_BYTES);
        byte[] event = eventHandle();
        Cuda.init();
        // the received fds are ours, closed last: the reader only borrowed them (a null resource is not closed)
        try (FdMessage ownFds = received;
                TorchLeases leases = TorchLeases.start();
                Context ctx = Context.retainPrimary(Device.get(0))) {
            ctx.makeCurrent();
            Stream stream = Stream.create(ctx, true);
            TorchReader reader = new TorchReader(ctx, leases);
            leases.awaitWatching(); // its process (and the pipes to it) made before the count
            long fds = OpenDescriptors.count();
            List<TorchTensorView> views = new ArrayList<>();
            StringBuilder hits = new StringBuilder();
            for (int b = 0; b < blocks; b++) {
                TorchHandle h = TorchHandle.parse(expandable
                        ? expandableHandle(producer, CHUNK_BYTES, chunks[2 * b], chunks[2 * b + 1])
                        : handle(b));
                for (int s = 0; s < 4; s++) {
                    long offset = (s / 2) * STORAGE_BYTES;
                    TorchShare share = new TorchShare(0, h, STORAGE_BYTES, offset, counter, 4L * b + s, event, true,
                            layout);
                    TorchTensorView v;
                    try {
                        v = given == null ? reader.open(share, stream)
                                : reader.open(share, stream, null, new int[] {given[2 * b], given[2 * b + 1]});
                    } catch (TorchInteropException refused) { // pidfd_getfd refused here: the test says why
                        System.out.println("refused " + refused.getMessage());
                        views.reversed().forEach(TorchTensorView::close);
                        return;
                    }
                    views.add(v);
                    hits.append(v.cacheHit() ? 'h' : 'm');
                    if (s == 1 && v.address() != views.get(views.size() - 2).address()) {
                        System.out.println("a re-open of block " + b + " maps elsewhere");
                    }
                    if (s == 2 && v.address() != views.get(views.size() - 3).address() + STORAGE_BYTES) {
                        System.out.println("block " + b + "'s second storage is not 4096 bytes in");
                    }
                }
            }
            stream.synchronize();
            System.out.println("opened " + views.size() + " " + hits + " blocks=" + reader.mappedBlocks()
                    + " storages=" + leases.openStorages());
            System.out.println("slots " + slots(counter, 4 * blocks));
            for (TorchTensorView v : views.reversed()) {
                v.close();
            }
            System.out.println("closed blocks=" + reader.mappedBlocks() + " storages=" + leases.openStorages()
                    + " descriptors kept " + (OpenDescriptors.count() - fds));
        }
    }

    /**
     * A version 2 {@code 'e'} handle as torch writes it (version, type, pid, padding, chunk size, chunk count, fd
     * numbers; little-endian): {@code pid}'s descriptors {@code fds}, chunks of {@code chunkBytes} each.
     */
    static byte[] expandableHandle(int pid, long chunkBytes, int... fds) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(2 + 4 + 4 + 8 + 8 + 4 * fds.length)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .put((byte) 2).put((byte) 'e').putInt(pid).putInt(0).putLong(chunkBytes).putLong(fds.length);
        for (int fd : fds) {
            b.putInt(fd);
        }
        return b.array();
    }

    private static int[] numbers(String commaSeparated) {
        return java.util.Arrays.stream(commaSeparated.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    /** A producer's event handle, none of its bytes zero. */
    private static byte[] eventHandle() {
        byte[] event = new byte[64];
        java.util.Arrays.fill(event, (byte) 7);
        return event;
    }

    /** The producer's one message: its chunks' numbers and the chunks' fds, received over its socket. */
    private static FdMessage receiveChunks(String socket) {
        try (FdChannel channel = FdChannel.connect(java.nio.file.Path.of(socket), java.time.Duration.ofSeconds(30))) {
            return channel.receive(java.time.Duration.ofSeconds(30));
        }
    }

    /** The slots' values, as one string of digits. */
    static String slots(String counter, int count) {
        try (TorchCounterFile f = TorchCounterFile.open(TorchCounterFile.DEFAULT_DIRECTORY, counter)) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < count; i++) {
                sb.append(f.slot(i));
            }
            return sb.toString();
        }
    }
}
