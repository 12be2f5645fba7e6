package org.cudaipc4j.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.ExportHolders;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdServer;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.ipc.DriverFiles;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.examples.ExportedStateDict.ExportPath;
import org.cudaipc4j.interop.DescriptorJson;

/**
 * The weight-sync pattern the other way: this JVM is the trainer. It allocates a state dict ({@link StateDict}:
 * about 100 tensors of mixed dtypes from 1 KiB to 256 MiB by default, or tens of thousands of small bf16 ones), exports
 * each through the library (a memory pool by default, VMM or
 * legacy IPC by choice) with its dtype and shape in the JSON descriptor, and sends the descriptors with their fds
 * over the descriptor socket to a Python server ({@code weight_sync.py server}), which opens each once with
 * {@code cudaipc4j.open} and holds its lease. Each round the trainer rewrites every tensor in place
 * ({@link ExportedStateDict#update}) and announces each tensor's {@link WeightSum}; the server recomputes them on the
 * GPU over its mappings. At the end the server drops its tensors, the trainer sees every lease released, frees its
 * memory, and both report their figures ({@link Report}). The messages are {@code weightsync/2}
 * (docs/interop-format.md).
 *
 * <pre>java -cp ... org.cudaipc4j.examples.WeightSyncProducerExample PYTHON_PACKAGE_DIR [ROUNDS [TENSORS
 *     [pool|vmm|legacy [mixed|bf16-small]]]]</pre>
 */
public final class WeightSyncProducerExample {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    /** Entries of the holder table beyond one per tensor. */
    private static final int HOLDER_SPARE = 8;

    /**
     * A run's knobs.
     *
     * @param rounds  rounds of updates, at least 1
     * @param tensors tensors in the state dict, 1 to {@link #MAX_TENSORS}
     * @param path    how the tensors are exported
     * @param seed    the patterns' seed
     * @param dict    the state dict's sizes and dtypes
     */
    record Options(int rounds, int tensors, ExportPath path, long seed, StateDict dict) {
        static final String USAGE = "usage: WeightSyncProducerExample PYTHON_PACKAGE_DIR [ROUNDS [TENSORS"
                + " [pool|vmm|legacy [mixed|bf16-small]]]]";
        /** The most tensors: the server holds each in one entry of the holder table, which has a few more. */
        static final int MAX_TENSORS = ExportHolders.MAX_ENTRIES - HOLDER_SPARE;

        Options {
            if (rounds < 1 || tensors < 1 || tensors > MAX_TENSORS) {
                throw new IllegalArgumentException("rounds must be at least 1 and tensors 1 to " + MAX_TENSORS
                        + ", got " + rounds + " and " + tensors);
            }
            Objects.requireNonNull(dict, "dict");
        }

        /**
         * The arguments after the package directory: {@code [ROUNDS [TENSORS [pool|vmm|legacy [mixed|bf16-small]]]]}.
         */
        static Options parse(List<String> args) {
            if (args.size() > 4) {
                throw new IllegalArgumentException(USAGE);
            }
            try {
                return new Options(args.size() > 0 ? Integer.parseInt(args.get(0)) : 50,
                        args.size() > 1 ? Integer.parseInt(args.get(1)) : 100,
                        args.size() > 2 ? ExportPath.parse(args.get(2)) : ExportPath.POOL, 1234,
                        args.size() > 3 ? StateDict.parse(args.get(3)) : StateDict.MIXED);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ROUNDS and TENSORS are integers: " + String.join(" ", args), e);
            }
        }
    }

    /**
     * What a run saw.
     *
     * @param rounds               rounds checked by the server
     * @param tensors              tensors in the state dict
     * @param bytesPerRound        their bytes
     * @param path                 the export path's name
     * @param leasesHeld           exports the server held (signed into the holder table) once it had mapped them
     * @param releaseMillis        from the server's memory report to every lease seen released
     * @param freeStart            {@code cuMemGetInfo} free bytes before the state dict (the server warmed up)
     * @param freeEnd              the same after every lease was released and the state dict freed
     * @param serverAllocatedStart the server's {@code torch.cuda.memory_allocated()} before its first mapping
     * @param serverAllocatedEnd   the same after it dropped every tensor
     * @param serverShmLeft        the server's {@code /dev/shm} entries (ours or torch's) at its end
     * @param javaShmLeft          this JVM's {@code /dev/shm} entries after its holder table and socket closed
     */
    public record Report(int rounds, int tensors, long bytesPerRound, String path, int leasesHeld, long releaseMillis,
            long freeStart, long freeEnd, long serverAllocatedStart, long serverAllocatedEnd, int serverShmLeft,
            int javaShmLeft) {
        /** Free device memory lost over the run (negative when more is free at the end). */
        public long freeLost() {
            return freeStart - freeEnd;
        }

        /** The figures, one line. */
        public String describe() {
            return String.format("%d rounds of %d tensors (%.1f MiB) exported by %s; leases held %d, released %d ms"
                    + " after the server's report; java free %d -> %d bytes (lost %d); server memory_allocated %d ->"
                    + " %d; /dev/shm left: server %d, java %d", rounds, tensors, bytesPerRound / 1048576.0, path,
                    leasesHeld, releaseMillis, freeStart, freeEnd, freeLost(), serverAllocatedStart,
                    serverAllocatedEnd, serverShmLeft, javaShmLeft);
        }
    }

    private WeightSyncProducerExample() {}

    /** Trains for {@code ROUNDS} rounds a state dict of {@code TENSORS} tensors served by Python; prints the report. */
    public static void main(String[] args) throws Exception {
        Options o;
        try {
            if (args.length < 1) {
                throw new IllegalArgumentException(Options.USAGE);
            }
            o = Options.parse(Arrays.asList(args).subList(1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path script = PythonScripts.extract("weight_sync.py");
        try {
            System.out.println(javaTrainerToPythonServer(script, Path.of(args[0]), o).describe());
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /**
     * Starts {@code python3 script server SOCKET} with {@code pythonPackage} on its {@code PYTHONPATH} and trains it.
     *
     * @throws IllegalStateException when the server refuses a round or fails, naming the round or exit status
     */
    static Report javaTrainerToPythonServer(Path script, Path pythonPackage, Options o) throws IOException,
            InterruptedException {
        Report r;
        try (Context ctx = Context.retainPrimary(Device.get(0)); FdServer server = FdServer.open();
                ExportHolders holders = ExportHolders.create(o.tensors() + HOLDER_SPARE)) {
            ProcessBuilder pb = new ProcessBuilder("python3", script.toString(), "server", server.socket().toString());
            pb.environment().put(ExamplesSettings.PYTHONPATH.name(), WeightSyncExample.pythonPath(pythonPackage));
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            Process python = pb.start();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(python.getInputStream(),
                    StandardCharsets.UTF_8)); Writer out = new OutputStreamWriter(python.getOutputStream(),
                    StandardCharsets.UTF_8)) {
                r = train(ctx, in, out, server, holders, o, () -> end(python));
                if (!python.waitFor(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the server did not exit within 60 s of bye");
                }
                if (python.exitValue() != 0) {
                    throw new IllegalStateException("the server exited with status " + python.exitValue());
                }
            } finally {
                end(python);
                DriverFiles.removeOf(python.pid()); // whatever torch leaves, at any exit
            }
        }
        // The holder table and the socket's directory are named cudaipc4j-<pid>-... too.
        int javaShmLeft = WeightSyncExample.shmEntries("cudaipc4j-" + ProcessHandle.current().pid() + "-");
        return new Report(r.rounds(), r.tensors(), r.bytesPerRound(), r.path(), r.leasesHeld(), r.releaseMillis(),
                r.freeStart(), r.freeEnd(), r.serverAllocatedStart(), r.serverAllocatedEnd(), r.serverShmLeft(),
                javaShmLeft);
    }

    /** Ends {@code python} if it still runs, and waits for it (an interrupt does not cut the wait short). */
    private static void end(Process python) {
        python.destroyForcibly(); // nothing for a process that has exited
        python.onExit().join();
    }

    /**
     * The trainer's side of the conversation: {@code in} from the server, {@code out} to it. When it fails after
     * the state dict was exported, {@code stopServer} ends the server before the state dict is freed: the server may
     * still map it.
     */
    static Report train(Context ctx, BufferedReader in, Writer out, FdServer server, ExportHolders holders,
            Options o, Runnable stopServer) throws IOException {
        if (!(WeightSyncMessage.parse(in.readLine()) instanceof WeightSyncMessage.Ready ready)) {
            throw new IllegalStateException("the server did not start with ready");
        }
        try (FdChannel channel = server.accept(LIMIT); Stream stream = Stream.create(ctx, true)) {
            if (channel.peer().pid() != ready.pid()) {
                throw new IllegalStateException("the descriptor socket's peer is pid " + channel.peer().pid()
                        + ", the server is pid " + ready.pid());
            }
            // The server is warmed up (context, kernels): from here the device's free memory is this JVM's to change.
            long freeStart = ctx.memInfo().free();
            List<ExportedStateDict.Spec> specs = ExportedStateDict.specs(o.tensors(), o.dict());
            long bytes = specs.stream().mapToLong(ExportedStateDict.Spec::bytes).sum();
            int round = 0;
            int held = 0;
            WeightSyncMessage.Memory mem;
            long releaseMillis;
            try (ExportedStateDict weights = ExportedStateDict.allocate(ctx, stream, o.path(), specs)) {
                try {
                    send(out, new WeightSyncMessage.Hello(ProcessHandle.current().pid(), specs.size()));
                    Set<Long> ids = new HashSet<>();
                    for (int i = 0; i < specs.size(); i++) {
                        ExportedStateDict.Exported e = weights.export(i, holders.name());
                        try (var export = e.export()) { // the receiver gets its own copies of the fds
                            ids.add(ExportedStateDict.exportId(e));
                            send(out, new WeightSyncMessage.Export(specs.get(i).name()));
                            channel.send(DescriptorJson.toJson(e.descriptor()).getBytes(StandardCharsets.UTF_8),
                                    Arrays.stream(export.fileDescriptors()).boxed().toList());
                        }
                    }
                    expect(in, new WeightSyncMessage.Mapped(specs.size()));
                    // One pass over the holder table for every export (a state dict may have tens of thousands).
                    for (List<Long> pids : holders.holders(ids).values()) {
                        held += pids.contains(ready.pid()) ? 1 : 0;
                    }
                    for (round = 1; round <= o.rounds(); round++) {
                        long[] sums = weights.update(o.seed(), round);
                        send(out, new WeightSyncMessage.Round(round, specs.size()));
                        for (int i = 0; i < specs.size(); i++) {
                            send(out, new WeightSyncMessage.Checksum(specs.get(i).name(), sums[i]));
                        }
                        expect(in, new WeightSyncMessage.Ok(round));
                    }
                    round--;
                    send(out, new WeightSyncMessage.End());
                    if (!(WeightSyncMessage.parse(in.readLine()) instanceof WeightSyncMessage.Memory m)) {
                        throw new IllegalStateException("the server did not report its memory");
                    }
                    mem = m;
                    long t0 = System.nanoTime();
                    Deadline deadline = Deadline.after(LIMIT, "the lease limit");
                    holders.awaitReleased(ids, deadline);
                    releaseMillis = (System.nanoTime() - t0) / 1_000_000;
                } catch (IOException | RuntimeException e) {
                    stopServer.run();
                    throw e;
                }
            }
            long freeEnd = ctx.memInfo().free();
            send(out, new WeightSyncMessage.Bye());
            return new Report(round, specs.size(), bytes, o.path().code(), held, releaseMillis, freeStart, freeEnd,
                    mem.allocatedStart(), mem.allocatedEnd(), mem.shmLeft(), -1);
        }
    }

    private static void expect(BufferedReader in, WeightSyncMessage expected) throws IOException {
        WeightSyncMessage m = WeightSyncMessage.parse(in.readLine());
        if (!m.equals(expected)) {
            throw new IllegalStateException("expected " + expected.format() + ", got: " + m.format());
        }
    }

    private static void send(Writer out, WeightSyncMessage m) throws IOException {
        out.write(m.format());
        out.write('\n');
        out.flush();
    }
}
