package org.cudaipc4j.simpleipc.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.kernels.MismatchCount;

/**
 * The child side of {@link CudaBackendGpuTest} (a fresh JVM), and a probe for device selection.
 * <ul>
 *   <li>{@code fill DEVICE MEM_HEX EVENT_HEX BYTES VALUE KERNEL}: attaches, opens both handles, waits on the event, fills
 *       with VALUE, records the event, then verifies on the host and on the device; prints the kernel used.
 *   <li>{@code select}: prints what {@code selectDevices} returns or throws.
 * </ul>
 */
public final class BackendChild {
    private BackendChild() {}

    public static void main(String[] args) {
        try (CudaBackend backend = new CudaBackend(
                args.length > 6 ? org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill.valueOf(args[6])
                        : org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill.VEC16)) {
            if (args[0].equals("select")) {
                try {
                    System.out.println("selected " + backend.selectDevices(List.of(), 32, System.out::println));
                } catch (RuntimeException e) {
                    System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                return;
            }
            int device = Integer.parseInt(args[1]);
            byte[] mem = HexFormat.of().parseHex(args[2]);
            byte[] evt = HexFormat.of().parseHex(args[3]);
            long bytes = Long.parseLong(args[4]);
            byte value = (byte) Integer.parseInt(args[5]);
            try (CudaAttachment att = backend.attach(device)) {
                Backend.PeerBuffer buf = att.openBuffer(mem, bytes);
                Backend.PeerEvent event = att.openEvent(evt);
                att.streamWait(event);
                att.fill(buf, value);
                att.record(event);
                MemorySegment host = att.copyToHost(buf);
                for (long i = 0; i < bytes; i++) {
                    if (host.get(JAVA_BYTE, i) != value) {
                        throw new IllegalStateException("host copy: byte " + i + " is " + host.get(JAVA_BYTE, i));
                    }
                }
                MismatchCount clean = att.countMismatchesOnDevice(buf, value);
                MismatchCount wrong = att.countMismatchesOnDevice(buf, (byte) (value + 1));
                if (clean.count() != 0 || clean.firstBadOffset() != -1 || wrong.count() != bytes
                        || wrong.firstBadOffset() != 0) {
                    throw new IllegalStateException("countMismatchesOnDevice: clean " + clean.count() + "/"
                            + clean.firstBadOffset() + ", wrong " + wrong.count() + "/" + wrong.firstBadOffset());
                }
                System.out.println("kernel " + att.fillKernel() + " grid " + att.fillGrid(bytes));
            }
        } catch (RuntimeException e) {
            System.err.println("BackendChild: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }
}
