package org.cudaipc4j.simpleipc.host;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.cudaipc4j.simpleipc.backend.Backend;

/**
 * The second process of {@link HostTwoProcessTest}: opens a buffer and an event exported by its parent, makes its
 * stream wait on the parent's gate event, fills the buffer, records the event, prints {@code RECORDED}, then
 * reads the buffer back and prints {@code DONE}. Exit 0 on success, 3 on wrong bytes, 1 on any error.
 *
 * <p>Arguments: device, memory handle (hex), event handle (hex), gate event handle (hex), bytes, fill value.
 */
public final class HostChild {
    private HostChild() {}

    public static void main(String[] args) {
        int device = Integer.parseInt(args[0]);
        HexFormat hex = HexFormat.of();
        long bytes = Long.parseLong(args[4]);
        byte value = (byte) Integer.parseInt(args[5]);
        int status = 0;
        try (HostBackend backend = new HostBackend(2)) {
            Backend.Attachment a = backend.attach(device);
            Backend.PeerBuffer buffer = a.openBuffer(hex.parseHex(args[1]), bytes);
            Backend.PeerEvent event = a.openEvent(hex.parseHex(args[2]));
            Backend.PeerEvent gate = a.openEvent(hex.parseHex(args[3]));
            a.streamWait(gate);
            a.fill(buffer, value);
            a.record(event);
            System.out.println("RECORDED");
            System.out.flush();
            MemorySegment host = a.copyToHost(buffer);
            for (long i = 0; i < bytes; i++) {
                if (host.get(ValueLayout.JAVA_BYTE, i) != value) {
                    System.err.printf("mismatch at %d: %d != %d%n", i, host.get(ValueLayout.JAVA_BYTE, i), value);
                    status = 3;
                    break;
                }
            }
            System.out.println("DONE");
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }
}
