package org.cudaipc4j.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.PinnedArena;
import org.cudaipc4j.cuda.ipc.DriverFiles;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.interop.opening.Descriptors;
import org.cudaipc4j.interop.opening.OpenOptions;
import org.cudaipc4j.interop.opening.OpenedTensor;
import org.cudaipc4j.interop.torch.TorchLeases;
import org.cudaipc4j.interop.torch.TorchReader;
import org.cudaipc4j.interop.torch.TorchShare;

/**
 * The weight-sync pattern: a PyTorch trainer ({@code weight_sync.py}) shares a seeded state dict ({@link StateDict}:
 * about 100 tensors of mixed dtypes from 1 KiB to 256 MiB by default, or tens of thousands of small bf16 ones) and
 * updates it in place each round; this JVM, the server, opens every share's descriptor with {@link Descriptors#open}
 * through one {@link TorchReader}, checks the {@link WeightSum} of its bytes against the trainer's (which torch
 * computes on the GPU) and gives every slot back. The trainer shares each tensor anew every round: each share carries
 * the event recorded after the update, and the open waits on it even when the block is mapped already (torch's own
 * reader skips that wait on its cache hit). The server sums on the host: the round's tensors are copied in chunks into
 * two pinned buffers in turn, a chunk summed while the next one is copied ({@link ChunkedWeightSum}). At the end both
 * sides report their memory: see {@link Report}. The messages are {@code weightsync/2} (docs/interop-format.md).
 *
 * <pre>java -cp ... org.cudaipc4j.examples.WeightSyncExample PYTHON_PACKAGE_DIR [ROUNDS [TENSORS [c|e
 *     [mixed|bf16-small]]]]</pre>
 */
public final class WeightSyncExample {
    /** Bytes copied to the host at a time for the checksum, into each of two pinned buffers. */
    private static final long CHUNK = 64L << 20;

    /** The trainer's torch allocator: the caching allocator's segments, or expandable segments. */
    public enum Allocator {
        /** {@code expandable_segments:False}: legacy IPC handles ({@code 'c'}). */
        CACHING("expandable_segments:False", TorchHandle.Type.CUDA_MALLOC),
        /** {@code expandable_segments:True}: torch's {@code 'e'} handles. */
        EXPANDABLE("expandable_segments:True", TorchHandle.Type.EXPANDABLE_SEGMENT);

        private final String allocConf;
        private final TorchHandle.Type handleType;

        Allocator(String allocConf, TorchHandle.Type handleType) {
            this.allocConf = allocConf;
            this.handleType = handleType;
        }

        /** The type of every handle this allocator's trainer shares. */
        public TorchHandle.Type handleType() {
            return handleType;
        }

        /** The value of {@code PYTORCH_CUDA_ALLOC_CONF} that selects it. */
        public String allocConf() {
            return allocConf;
        }

        /** {@code c} or {@code e}, as torch's handles name them. */
        public static Allocator parse(String s) {
            return switch (s) {
                case "c" -> CACHING;
                case "e" -> EXPANDABLE;
                default -> throw new IllegalArgumentException("the allocator is c (caching) or e (expandable), got '"
                        + s + "'");
            };
        }
    }

    /**
     * What a run saw.
     *
     * @param rounds                rounds checked
     * @param tensorsChecked        shares mapped and checked, all rounds together
     * @param bytesChecked          their bytes
     * @param freeStart             this JVM's {@code cuMemGetInfo} free bytes before its first mapping
     * @param freeEnd               the same after every view was closed
     * @param trainerAllocatedStart the trainer's {@code torch.cuda.memory_allocated()} before its state dict
     * @param trainerAllocatedEnd   the same after freeing it and {@code torch.cuda.ipc_collect()}
     * @param trainerShmLeft        the trainer's {@code /dev/shm} entries (torch's counter files) left at its end
     * @param javaShmLeft           this JVM's {@code /dev/shm} entries left after the leases closed
     */
    public record Report(int rounds, long tensorsChecked, long bytesChecked, long freeStart, long freeEnd,
            long trainerAllocatedStart, long trainerAllocatedEnd, int trainerShmLeft, int javaShmLeft) {
        /** Free device memory lost over the run (negative when more is free at the end). */
        public long freeLost() {
            return freeStart - freeEnd;
        }

        /** The figures, one line. */
        public String describe() {
            return String.format("%d rounds, %d tensors checked (%.1f MiB); java free %d -> %d bytes (lost %d);"
                    + " trainer memory_allocated %d -> %d; /dev/shm left: trainer %d, java %d", rounds, tensorsChecked,
                    bytesChecked / 1048576.0, freeStart, freeEnd, freeLost(), trainerAllocatedStart,
                    trainerAllocatedEnd, trainerShmLeft, javaShmLeft);
        }
    }

    private WeightSyncExample() {}

    /** Runs a trainer of {@code tensors} tensors for {@code rounds} rounds and serves it; prints the report. */
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 5) {
            System.err.println("usage: WeightSyncExample PYTHON_PACKAGE_DIR [ROUNDS [TENSORS [c|e"
                    + " [mixed|bf16-small]]]]");
            System.exit(2);
        }
        Path script = PythonScripts.extract("weight_sync.py");
        try {
            Report r = pythonTrainerToJavaServer(script, Path.of(args[0]),
                    args.length > 1 ? Integer.parseInt(args[1]) : 50, args.length > 2 ? Integer.parseInt(args[2]) : 100,
                    args.length > 3 ? Allocator.parse(args[3]) : Allocator.CACHING,
                    args.length > 4 ? StateDict.parse(args[4]) : StateDict.MIXED, 1234);
            System.out.println(r.describe());
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /**
     * Starts {@code python3 script trainer} with {@code pythonPackage} on its {@code PYTHONPATH} and serves it.
     *
     * @param script        {@code weight_sync.py}
     * @param pythonPackage the folder of the {@code cudaipc4j} package
     * @param rounds        rounds of updates
     * @param tensors       tensors in the state dict
     * @param allocator     the trainer's torch allocator
     * @param dict          the state dict's sizes and dtypes
     * @param seed          the state dict's seed
     * @return what the run saw
     * @throws IllegalStateException when a checksum differs or the trainer fails, naming the tensor or exit status
     * @throws IOException           when the trainer cannot be started or spoken to
     * @throws InterruptedException  when interrupted while waiting for the trainer's exit
     */
    public static Report pythonTrainerToJavaServer(Path script, Path pythonPackage, int rounds, int tensors,
            Allocator allocator, StateDict dict, long seed) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("python3", script.toString(), "trainer", Integer.toString(rounds),
                Integer.toString(tensors), Long.toString(seed), dict.code());
        pb.environment().put(ExamplesSettings.PYTHONPATH.name(), pythonPath(pythonPackage));
        pb.environment().put("PYTORCH_CUDA_ALLOC_CONF", allocator.allocConf());
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process trainer = pb.start();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(trainer.getInputStream(),
                StandardCharsets.UTF_8)); Writer out = new OutputStreamWriter(trainer.getOutputStream(),
                StandardCharsets.UTF_8)) {
            Report r = serve(in, out, allocator);
            if (!trainer.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the trainer did not exit within 60 s of its memory report");
            }
            if (trainer.exitValue() != 0) {
                throw new IllegalStateException("the trainer exited with status " + trainer.exitValue());
            }
            return r;
        } finally {
            if (trainer.isAlive()) {
                trainer.destroyForcibly();
                trainer.waitFor();
            }
            DriverFiles.removeOf(trainer.pid()); // torch leaves its own, even at a normal exit
        }
    }

    /**
     * The server's side of the conversation: {@code in} from the trainer, {@code out} to it. Every share must be of
     * {@code allocator}'s handle type, so that a run asked for expandable segments does read them.
     */
    static Report serve(BufferedReader in, Writer out, Allocator allocator) throws IOException {
        if (!(WeightSyncMessage.parse(in.readLine()) instanceof WeightSyncMessage.Hello hello)) {
            throw new IllegalStateException("the trainer did not start with hello");
        }
        Context ctx = null;
        long freeStart = -1;
        long freeEnd;
        int round = 0;
        long checked = 0;
        long bytes = 0;
        Path book;
        // Started before CUDA's first use: it starts a small JVM (the lease watcher).
        try (TorchLeases leases = TorchLeases.start()) {
            book = leases.bookPath();
            OpenOptions options = null;
            org.cudaipc4j.cuda.Stream stream = null;
            MemorySegment[] host = null;
            try {
                for (WeightSyncMessage m = WeightSyncMessage.parse(in.readLine()); !(m instanceof WeightSyncMessage.End);
                        m = WeightSyncMessage.parse(in.readLine())) {
                    if (!(m instanceof WeightSyncMessage.Round r) || r.round() != round + 1
                            || r.tensors() != hello.tensors()) {
                        throw new IllegalStateException("expected round " + (round + 1) + " of " + hello.tensors()
                                + " tensors, got: " + m.format());
                    }
                    round = r.round();
                    List<WeightSyncMessage.Tensor> lines = new ArrayList<>();
                    List<OpenedTensor> views = new ArrayList<>();
                    try {
                        for (int i = 0; i < r.tensors(); i++) {
                            if (!(WeightSyncMessage.parse(in.readLine()) instanceof WeightSyncMessage.Tensor t)) {
                                throw new IllegalStateException("round " + round + " ended after " + i + " tensors");
                            }
                            Descriptor d = DescriptorJson.fromJson(t.descriptorJson());
                            if (ctx == null) {
                                ctx = Context.retainPrimary(Device.byUuid(d.deviceUuid()));
                                stream = org.cudaipc4j.cuda.Stream.create(ctx, true);
                                // One reader for every share: a block torch shares again is mapped once.
                                options = OpenOptions.defaults().withTorchReader(new TorchReader(ctx, leases));
                                // Host memory, owned by the context; allocated before the first figure all the same.
                                PinnedArena pinned = PinnedArena.open(ctx);
                                host = new MemorySegment[] {pinned.allocate(CHUNK, 4096),
                                    pinned.allocate(CHUNK, 4096)};
                                freeStart = ctx.memInfo().free();
                            }
                            TorchShare share = TorchShare.of(d);
                            if (share.handle() != null && share.handle().type() != allocator.handleType()) {
                                throw new IllegalStateException("round " + round + ": " + t.name() + " is a '"
                                        + share.handle().type().code() + "' share, the trainer runs with "
                                        + allocator.allocConf());
                            }
                            lines.add(t);
                            views.add(Descriptors.open(d, ctx, stream, options));
                        }
                        // Every view's wait on its producer's event is on this stream: the copies come after it.
                        long[] sums = wsum64(views, host, stream, round, lines);
                        for (int i = 0; i < views.size(); i++) {
                            if (sums[i] != lines.get(i).wsum64()) {
                                throw new IllegalStateException("round " + round + ": " + lines.get(i).name()
                                        + " has wsum64 " + WeightSum.format(sums[i]) + ", the trainer's is "
                                        + WeightSum.format(lines.get(i).wsum64()));
                            }
                            checked++;
                            bytes += views.get(i).bytes();
                        }
                    } finally {
                        Closeables.closeAll(views.reversed().toArray(AutoCloseable[]::new));
                    }
                    send(out, new WeightSyncMessage.Ok(round));
                }
                freeEnd = ctx == null ? -1 : ctx.memInfo().free();
            } finally {
                if (ctx != null) {
                    ctx.close();
                }
            }
        }
        int javaShmLeft = shmEntries("cudaipc4j-" + ProcessHandle.current().pid() + "-") + (Files.exists(book) ? 1 : 0);
        send(out, new WeightSyncMessage.Bye());
        if (!(WeightSyncMessage.parse(in.readLine()) instanceof WeightSyncMessage.Memory mem)) {
            throw new IllegalStateException("the trainer did not report its memory");
        }
        return new Report(round, checked, bytes, freeStart, freeEnd, mem.allocatedStart(), mem.allocatedEnd(),
                mem.shmLeft(), javaShmLeft);
    }

    private static void send(Writer out, WeightSyncMessage m) throws IOException {
        out.write(m.format());
        out.write('\n');
        out.flush();
    }

    /**
     * The wsum64 of every view's bytes, copied by {@code stream} into the two {@code host} buffers in turn.
     *
     * @throws IllegalStateException for a tensor whose size is not a multiple of 8, naming it
     */
    private static long[] wsum64(List<OpenedTensor> views, MemorySegment[] host, org.cudaipc4j.cuda.Stream stream,
            int round, List<WeightSyncMessage.Tensor> lines) {
        long[] sizes = new long[views.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = views.get(i).bytes();
            if (sizes[i] % 8 != 0) {
                throw new IllegalStateException("round " + round + ": " + lines.get(i).name() + " has " + sizes[i]
                        + " bytes, wsum64 reads 8-byte words");
            }
        }
        return ChunkedWeightSum.of(sizes, host[0], host[1], new ChunkedWeightSum.Copier() {
            @Override
            public void copyAsync(int buffer, long offset, MemorySegment dst) {
                views.get(buffer).copyToAsync(offset, dst, stream);
            }

            @Override
            public void await() {
                stream.synchronize();
            }
        });
    }

    /** {@code PYTHONPATH} for an example's Python process: {@code pythonPackage}'s folder, then this process's. */
    static String pythonPath(Path pythonPackage) {
        String path = ExamplesSettings.PYTHONPATH.get();
        return pythonPackage + (path == null || path.isEmpty() ? "" : ":" + path);
    }

    /** How many entries of {@code /dev/shm} start with {@code prefix}. */
    static int shmEntries(String prefix) throws IOException {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(shm)) {
            return (int) s.filter(p -> p.getFileName().toString().startsWith(prefix)).count();
        }
    }
}
