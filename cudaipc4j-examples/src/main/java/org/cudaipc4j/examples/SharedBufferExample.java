package org.cudaipc4j.examples;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.cudaipc4j.coord.ChildRuntime;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Supervisor;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Event;
import org.cudaipc4j.cuda.EventFlag;
import org.cudaipc4j.cuda.ipc.IpcEventHandle;
import org.cudaipc4j.cuda.ipc.IpcMappedMemory;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;
import org.cudaipc4j.cuda.PinnedArena;
import org.cudaipc4j.cuda.Stream;

/**
 * Two JVMs share a GPU buffer and an event through the libraries alone. The parent allocates a buffer, fills it on
 * its stream and records an interprocess event after the fill; it puts both handles and its device's UUID in the
 * child's control-block slot and starts the child. The child opens the buffer and the event, makes its stream wait
 * for the parent's fill (no host synchronisation), checks the bytes, writes new ones and exits; the parent checks
 * those. Every wait has a timeout and either side's death ends the other.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp ... org.cudaipc4j.examples.SharedBufferExample [BYTES]}
 */
public final class SharedBufferExample {
    /** What the parent writes into the child's slot. */
    static final StructLayout SLOT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(IpcMemHandle.SIZE, JAVA_BYTE).withName("memory"),
            MemoryLayout.sequenceLayout(IpcEventHandle.SIZE, JAVA_BYTE).withName("event"),
            JAVA_LONG.withName("bytes"),
            JAVA_LONG.withName("uuidHigh"),
            JAVA_LONG.withName("uuidLow")).withName("SharedBufferSlot");
    private static final long MEMORY = SLOT.byteOffset(groupElement("memory"));
    private static final long EVENT = SLOT.byteOffset(groupElement("event"));
    private static final VarHandle BYTES = SLOT.varHandle(groupElement("bytes"));
    private static final VarHandle UUID_HIGH = SLOT.varHandle(groupElement("uuidHigh"));
    private static final VarHandle UUID_LOW = SLOT.varHandle(groupElement("uuidLow"));

    static final byte PARENT_VALUE = 0x2a;
    static final byte CHILD_VALUE = 0x55;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private SharedBufferExample() {}

    public static void main(String[] args) {
        int exit = args.length == 2 && args[0].equals("--child") ? child(args[1])
                : parent(args.length > 0 ? Long.parseLong(args[0]) : 64L << 20);
        System.exit(exit);
    }

    static int parent(long bytes) {
        Cuda.init();
        Device device = Device.get(0);
        // The context owns the buffer, event, stream and pinned memory: closing it frees them all.
        try (Context ctx = Context.retainPrimary(device);
             ControlBlock block = ControlBlock.create(1, SLOT);
             Supervisor supervisor = new Supervisor(block, Supervisor.Options.defaults())) {
            Stream stream = Stream.create(ctx, true);
            DeviceBuffer buffer = DeviceBuffer.allocate(ctx, bytes);
            Event filled = Event.create(ctx, EventFlag.INTERPROCESS, EventFlag.DISABLE_TIMING);
            buffer.memsetAsync(PARENT_VALUE, stream);
            filled.record(stream);

            MemorySegment slot = block.slotData(0);
            MemorySegment.copy(IpcMemHandle.export(buffer).toBytes(), 0, slot, JAVA_BYTE, MEMORY, IpcMemHandle.SIZE);
            MemorySegment.copy(IpcEventHandle.export(filled).toBytes(), 0, slot, JAVA_BYTE, EVENT, IpcEventHandle.SIZE);
            BYTES.set(slot, 0L, bytes);
            UUID uuid = device.uuid();
            UUID_HIGH.set(slot, 0L, uuid.getMostSignificantBits());
            UUID_LOW.set(slot, 0L, uuid.getLeastSignificantBits());
            block.publishReady();

            supervisor.start(SharedBufferExample.class.getName(), List.of(List.of("--child", block.name())));
            Supervisor.Outcome outcome = supervisor.awaitAll(TIMEOUT);
            if (!outcome.ok()) {
                outcome.failures().forEach(f -> System.out.println("child failed (" + f.reason() + ")"));
                return 1;
            }
            // The child synchronised its stream before it exited: its bytes are in the buffer.
            long wrong = countOther(buffer, CHILD_VALUE, ctx, stream);
            if (wrong != 0) {
                System.out.println("parent: " + wrong + " bytes are not the child's value");
                return 1;
            }
            System.out.println("parent: the child's " + bytes + " bytes arrived");
            return 0;
        }
    }

    static int child(String blockName) {
        try (ChildRuntime runtime = ChildRuntime.join(blockName, SLOT, 0)) {
            ControlBlock block = runtime.block();
            block.awaitReady(TIMEOUT, "buffer and event");
            MemorySegment slot = block.slotData(0);
            long bytes = (long) BYTES.get(slot, 0L);
            // The device by UUID: this process may number the GPUs differently (CUDA_VISIBLE_DEVICES).
            Device device = Device.byUuid(new UUID((long) UUID_HIGH.get(slot, 0L), (long) UUID_LOW.get(slot, 0L)));
            try (Context ctx = Context.retainPrimary(device)) {
                IpcMappedMemory buffer = IpcMemHandle.fromBytes(slot.asSlice(MEMORY, IpcMemHandle.SIZE)
                        .toArray(JAVA_BYTE)).open(ctx, bytes, true);
                Event filled = IpcEventHandle.fromBytes(slot.asSlice(EVENT, IpcEventHandle.SIZE).toArray(JAVA_BYTE))
                        .open(ctx);
                Stream stream = Stream.create(ctx, true);
                stream.waitEvent(filled); // the parent's fill comes first, on the device
                long wrong = countOther(buffer, PARENT_VALUE, ctx, stream);
                if (wrong != 0) {
                    System.out.println("child: " + wrong + " bytes are not the parent's value");
                    runtime.fail("the parent's bytes did not arrive");
                    return 1;
                }
                buffer.memsetAsync(CHILD_VALUE, stream);
                stream.synchronize();
                System.out.println("child: read the parent's " + bytes + " bytes and wrote its own");
                return 0;
            }
        } catch (CoordinationException e) {
            System.out.println("child: " + e.getMessage());
            return 1;
        }
    }

    /** Bytes of {@code memory} that are not {@code value}, read after the work on {@code stream}. */
    private static long countOther(org.cudaipc4j.cuda.DeviceMemory memory, byte value, Context ctx, Stream stream) {
        long wrong = 0;
        long chunk = Math.min(memory.bytes(), 16L << 20);
        try (PinnedArena pinned = PinnedArena.open(ctx)) {
            MemorySegment host = pinned.allocate(chunk);
            for (long at = 0; at < memory.bytes(); at += chunk) {
                long n = Math.min(chunk, memory.bytes() - at);
                memory.copyToAsync(at, host.asSlice(0, n), stream);
                stream.synchronize();
                for (long i = 0; i < n; i++) {
                    if (host.get(JAVA_BYTE, i) != value) {
                        wrong++;
                    }
                }
            }
        }
        return wrong;
    }
}
