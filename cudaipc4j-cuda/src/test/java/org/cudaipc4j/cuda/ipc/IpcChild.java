package org.cudaipc4j.cuda.ipc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.Stream;

/**
 * The other process of the IPC tests (a fresh JVM). Modes:
 * <ul>
 *   <li>{@code write MEM_HEX EVENT_HEX BYTES EXPECTED VALUE}: opens both handles, checks every byte equals
 *       EXPECTED, fills the buffer with VALUE, records the event after the fill, waits, exits 0.
 *   <li>{@code export BYTES VALUE}: allocates and fills a buffer, prints {@code MEM <hex>} and {@code EVENT <hex>}
 *       (the event recorded after the fill), keeps both alive until a line arrives on stdin.
 * </ul>
 * Any failure: one line on stderr and exit 1.
 */
public final class IpcChild {
    private IpcChild() {}

    public static void main(String[] args) throws Exception {
        try {
            switch (args[0]) {
                case "write" -> write(IpcMemHandle.fromHex(args[1]), IpcEventHandle.fromHex(args[2]),
                        Long.parseLong(args[3]), (byte) Integer.parseInt(args[4]), (byte) Integer.parseInt(args[5]));
                case "export" -> export(Long.parseLong(args[1]), (byte) Integer.parseInt(args[2]));
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        } catch (RuntimeException e) {
            System.err.println("IpcChild: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void write(IpcMemHandle mem, IpcEventHandle evt, long bytes, byte expected, byte value) {
        try (Context ctx = Context.retainPrimary(Device.get(0));
             Stream stream = Stream.create(ctx, true);
             IpcMappedMemory buf = mem.open(ctx, true);
             Event event = evt.open(ctx)) {
            if (buf.bytes() < bytes) {
                throw new IllegalStateException("mapping has " + buf.bytes() + " bytes, expected " + bytes);
            }
            String before = DeviceBytes.firstDifference(buf, bytes, expected);
            if (before != null) {
                throw new IllegalStateException("the exporter's data differs: " + before);
            }
            buf.memsetAsync(0, bytes, value, stream);
            event.record(stream);
            stream.synchronize();
            System.out.println("wrote " + bytes + " bytes");
        }
    }

    private static void export(long bytes, byte value) throws Exception {
        try (Context ctx = Context.retainPrimary(Device.get(0));
             Stream stream = Stream.create(ctx, true);
             DeviceBuffer buf = DeviceBuffer.allocate(ctx, bytes);
             Event event = Event.create(ctx, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING)) {
            buf.memsetAsync(value, stream);
            event.record(stream);
            stream.synchronize();
            System.out.println("MEM " + IpcMemHandle.export(buf).hex());
            System.out.println("EVENT " + IpcEventHandle.export(event).hex());
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
    }
}
