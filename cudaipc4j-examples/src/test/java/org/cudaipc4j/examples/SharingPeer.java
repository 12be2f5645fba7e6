package org.cudaipc4j.examples;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.ipc.ImportedMemory;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.testing.OpenDescriptors;

/**
 * The importing process of {@link SharingGpuTest}: {@code SOCKET EXPECTED VALUE} connects, receives a memory
 * descriptor with its file descriptors, maps it twice (printing {@code IMPORT first_us cached_us}), checks every
 * byte is EXPECTED, writes VALUE, closes everything, answers {@code done} and prints {@code FDS closed} when every
 * descriptor it received is closed (its number free, or holding another file), else {@code FDS open <fd> <file>}.
 * Any failure: one line {@code ERROR <message>} and exit 1.
 */
public final class SharingPeer {
    private SharingPeer() {}

    /** What each descriptor this process received named when it came: fd number to file. */
    private static final java.util.Map<Integer, String> RECEIVED = new java.util.LinkedHashMap<>();

    public static void main(String[] args) {
        int exit;
        Cuda.init();
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            ctx.makeCurrent();
            exit = importAndWrite(ctx, args);
        }
        // Counting descriptors would not do: the driver opens and closes its own meanwhile.
        String open = RECEIVED.entrySet().stream()
                .filter(e -> e.getValue().equals(OpenDescriptors.target(e.getKey()))).map(e -> e.getKey() + " " + e.getValue()).findFirst().orElse(null);
        System.out.println(open == null ? "FDS closed" : "FDS open " + open);
        System.exit(exit);
    }

    private static int importAndWrite(Context ctx, String[] args) {
        try (FdChannel channel = FdChannel.connect(Path.of(args[0]), Duration.ofSeconds(60))) {
            byte expected = (byte) Integer.parseInt(args[1]);
            byte value = (byte) Integer.parseInt(args[2]);
            try (FdMessage message = channel.receive(Duration.ofSeconds(60));
                 MemoryImporter importer = MemoryImporter.open(ctx, 4)) {
                SharedMemoryDescriptor descriptor = SharedMemoryDescriptor.fromBytes(message.payload());
                int[] fds = message.fds().stream().mapToInt(OwnedFd::value).toArray();
                for (int fd : fds) {
                    RECEIVED.put(fd, OpenDescriptors.target(fd));
                }
                long t0 = System.nanoTime();
                ImportedMemory first = importer.map(descriptor, fds);
                long t1 = System.nanoTime();
                ImportedMemory again = importer.map(descriptor, fds);
                long t2 = System.nanoTime();
                System.out.printf(Locale.ROOT, "IMPORT %.1f %.2f%n", (t1 - t0) / 1e3, (t2 - t1) / 1e3);
                String wrong = Bytes.firstDifference(first, expected);
                if (wrong != null) {
                    throw new IllegalStateException("the exporter's bytes did not arrive: " + wrong);
                }
                first.memset(value);
                again.close();
                first.close();
            }
            channel.send("done".getBytes(StandardCharsets.UTF_8), java.util.List.of());
            return 0;
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e.getMessage());
            return 1;
        }
    }
}
