package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.coord.fd.PidFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ipc.ImportedMemory;
import org.cudaipc4j.cuda.ipc.MemoryImporter;
import org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.launch.LaunchEnvironment;
import org.cudaipc4j.launch.RendezvousOptions;

/**
 * One NCCL rank of a GPU test, in a process of its own: {@code SCENARIO RANK SIZE UNIQUE-ID-HEX [FILE]}. Prints
 * {@code ok ...} lines for what it checked and exits 0, or prints the failure and exits 1.
 */
public final class RankProgram {
    private RankProgram() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("receive-launched")) {
            receiveLaunched(Long.parseLong(args[1]));
            System.out.println("ok closed");
            return;
        }
        String scenario = args[0];
        int rank = Integer.parseInt(args[1]);
        int size = Integer.parseInt(args[2]);
        UniqueId id = UniqueId.ofHex(args[3]);
        Nccl nccl = Nccl.load();
        try (Context context = Context.retainPrimary(Device.get(0));
             Communicator comm = Communicator.create(context, nccl, id, rank, size,
                     CommunicatorOptions.DEFAULTS.withTimeout(Duration.ofSeconds(60)).withName("test")
                             .withBlocking(scenario.endsWith("-blocking")));
             Stream stream = Stream.create(context, true)) {
            System.out.println("ok joined rank " + comm.rank() + " of " + comm.size() + " on " + nccl);
            switch (scenario) {
                case "collectives", "collectives-blocking" -> collectives(context, comm, stream);
                case "ipc" -> ipc(context, comm, stream, Path.of(args[4]));
                case "receive" -> receive(context, comm, stream, Long.parseLong(args[4]));
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
        }
        System.out.println("ok closed");
    }

    private static void collectives(Context context, Communicator comm, Stream stream) {
        int rank = comm.rank();
        int size = comm.size();
        int n = 1 << 18; // floats per rank: 1 MiB
        try (DeviceBuffer send = DeviceBuffer.allocate(context, 4L * n);
             DeviceBuffer recv = DeviceBuffer.allocate(context, 4L * n * size)) {
            // all-reduce: element i of rank r is r + i; the sum over ranks is size*i + size*(size-1)/2
            fill(send, n, i -> rank + i);
            comm.allReduce(send, recv.slice(0, 4L * n), DataType.FLOAT32, ReduceOp.SUM, stream);
            comm.await(stream);
            expect(recv, n, i -> (float) size * i + size * (size - 1) / 2f, "allReduce SUM");
            comm.allReduce(send, recv.slice(0, 4L * n), DataType.FLOAT32, ReduceOp.MAX, stream);
            comm.await(stream);
            expect(recv, n, i -> size - 1 + i, "allReduce MAX");
            System.out.println("ok allReduce");

            // broadcast from the last rank, in place
            fill(send, n, i -> rank * 1000f + i % 1000);
            comm.broadcast(send, DataType.FLOAT32, size - 1, stream);
            comm.await(stream);
            expect(send, n, i -> (size - 1) * 1000f + i % 1000, "broadcast");
            System.out.println("ok broadcast");

            // all-gather: block r holds rank r's values
            fill(send, n, i -> rank * 7f + i % 97);
            comm.allGather(send, recv, DataType.FLOAT32, stream);
            comm.await(stream);
            for (int r = 0; r < size; r++) {
                int block = r;
                expect(recv.slice(4L * n * r, 4L * n), n, i -> block * 7f + i % 97, "allGather block " + r);
            }
            System.out.println("ok allGather");

            // reduce-scatter: rank r keeps the sum of block r
            fill(recv, n * size, i -> rank + (i % 13));
            comm.reduceScatter(recv, send, DataType.FLOAT32, ReduceOp.SUM, stream);
            comm.await(stream);
            int blockStart = n * rank;
            expect(send, n, i -> size * ((blockStart + i) % 13) + size * (size - 1) / 2f, "reduceScatter");
            System.out.println("ok reduceScatter");

            // a ring of send/recv in one group, on registered memory
            try (BufferRegistration a = comm.register(send); BufferRegistration b = comm.register(recv)) {
                fill(send, n, i -> rank * 3f + i);
                int next = (rank + 1) % size;
                int previous = (rank + size - 1) % size;
                comm.group(() -> {
                    comm.send(send, DataType.FLOAT32, next, stream);
                    comm.recv(recv.slice(0, 4L * n), DataType.FLOAT32, previous, stream);
                });
                comm.await(stream);
                expect(recv, n, i -> previous * 3f + i, "ring send/recv");
            }
            System.out.println("ok send/recv registered");

            // split into even and odd ranks; each half all-reduces its ranks
            var half = comm.split(rank % 2, rank, CommunicatorOptions.DEFAULTS);
            try (Communicator h = half.orElseThrow()) {
                fill(send, n, i -> 1f);
                h.allReduce(send, recv.slice(0, 4L * n), DataType.FLOAT32, ReduceOp.SUM, stream);
                h.await(stream);
                expect(recv, n, i -> h.size(), "split allReduce");
                int expectedSize = (size + (rank % 2 == 0 ? 1 : 0)) / 2;
                if (h.size() != expectedSize || h.rank() != rank / 2) {
                    throw new AssertionError("split gave rank " + h.rank() + " of " + h.size());
                }
            }
            if (comm.split(rank == 0 ? Communicator.NO_COLOR : 0, rank, CommunicatorOptions.DEFAULTS)
                    .map(c -> { c.close(); return rank == 0; }).orElse(rank != 0)) {
                throw new AssertionError("NO_COLOR split: rank " + rank + " got the wrong answer");
            }
            System.out.println("ok split");
        }
    }

    /**
     * The test's parent exported SIZE float blocks of N floats over three paths and wrote, per path, a line
     * "PATH PID N DESCRIPTOR-HEX FD..."; each rank maps them, all-reduces block 0 (all ones, read-only) into its own
     * block RANK+1 of the same mapping, for the parent to check.
     */
    private static void ipc(Context context, Communicator comm, Stream stream, Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        try (MemoryImporter importer = MemoryImporter.open(context, 0)) {
            for (String line : lines) {
                String[] f = line.split(" ");
                long pid = Long.parseLong(f[1]);
                int n = Integer.parseInt(f[2]);
                SharedMemoryDescriptor descriptor = SharedMemoryDescriptor.fromBytes(HexFormat.of().parseHex(f[3]));
                OwnedFd[] owned = new OwnedFd[f.length - 4];
                int[] fds = new int[owned.length];
                for (int i = 0; i < owned.length; i++) {
                    owned[i] = PidFd.take(pid, Integer.parseInt(f[4 + i]));
                    fds[i] = owned[i].value();
                }
                try (ImportedMemory shared = importer.map(descriptor, fds)) {
                    DeviceMemory ones = shared.slice(0, 4L * n);
                    DeviceMemory mine = shared.slice(4L * n * (comm.rank() + 1), 4L * n);
                    comm.allReduce(ones, mine, DataType.FLOAT32, ReduceOp.SUM, stream);
                    comm.await(stream);
                    expect(mine, n, i -> comm.size(), f[0] + " allReduce");
                } finally {
                    for (OwnedFd o : owned) {
                        o.close();
                    }
                }
                System.out.println("ok ipc " + f[0]);
            }
        }
    }

    /**
     * Receives rank 0's broadcast of {@code ints} int32 values, element i = (int) (i * 2654435761), and checks
     * every one.
     */
    private static void receive(Context context, Communicator comm, Stream stream, long ints) {
        try (DeviceBuffer buffer = DeviceBuffer.allocate(context, 4 * ints);
             Arena arena = Arena.ofConfined()) {
            buffer.memset((byte) 0);
            comm.broadcast(buffer, DataType.INT32, 0, stream);
            comm.await(stream);
            long chunk = Math.min(ints, 16L << 20);
            MemorySegment host = arena.allocate(4 * chunk);
            for (long start = 0; start < ints; start += chunk) {
                long n = Math.min(chunk, ints - start);
                buffer.copyTo(4 * start, host.asSlice(0, 4 * n));
                for (long k = 0; k < n; k++) {
                    int got = host.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, k);
                    int expected = (int) ((start + k) * 2654435761L);
                    if (got != expected) {
                        throw new AssertionError("element " + (start + k) + " is " + got + ", expected " + expected);
                    }
                }
            }
            System.out.println("ok received " + 4 * ints);
        }
    }

    /** As "receive", joined through the rendezvous its launcher's variables name (rank 0 may be a torch process). */
    private static void receiveLaunched(long ints) throws Exception {
        LaunchEnvironment launch = LaunchEnvironment.fromSystem();
        Nccl nccl = Nccl.load();
        try (Context context = Context.retainPrimary(Device.get(0));
             NcclRank rank = NcclRank.join(context, nccl, RendezvousOptions.builder(launch),
                     CommunicatorOptions.DEFAULTS.withTimeout(Duration.ofSeconds(120)), Duration.ofMillis(100),
                     line -> System.err.println("watchdog: " + line));
             Stream stream = Stream.create(context, true)) {
            System.out.println("ok joined rank " + rank.communicator().rank() + " of " + rank.communicator().size()
                    + " on " + nccl);
            receive(context, rank.communicator(), stream, ints);
        }
    }

    interface Values {
        float at(int i);
    }

    static void fill(DeviceMemory memory, int n, Values values) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(4L * n);
            for (int i = 0; i < n; i++) {
                host.setAtIndex(JAVA_FLOAT, i, values.at(i));
            }
            memory.copyFrom(0, host);
        }
    }

    static void expect(DeviceMemory memory, int n, Values values, String what) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(4L * n);
            memory.copyTo(0, host);
            for (int i = 0; i < n; i++) {
                float got = host.getAtIndex(JAVA_FLOAT, i);
                if (got != values.at(i)) {
                    throw new AssertionError(what + ": element " + i + " is " + got + ", expected " + values.at(i));
                }
            }
        }
    }

}
