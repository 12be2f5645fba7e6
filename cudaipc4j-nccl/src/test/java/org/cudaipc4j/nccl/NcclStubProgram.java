package org.cudaipc4j.nccl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.Stream;

/**
 * The Java side of {@link NcclStubTest}, in a process of its own (a process binds one NCCL library): {@code calls
 * DIR} or {@code versions DIR} over the stub libraries the test built in {@code DIR}, with the stub CUDA driver as
 * {@code libcuda.so.1}. Prints one line per step: what the step returned or threw, then the calls the stub NCCL
 * logged, with the addresses of the buffers and the stream named ({@code a}, {@code b}, {@code b+256},
 * {@code stream}) and {@code DIR} for the folder.
 */
public final class NcclStubProgram {
    private static final Pattern ADDRESS = Pattern.compile("0x[0-9a-f]+");
    private static final Map<String, String> NAMES = new HashMap<>();
    private static String dir;
    private static MethodHandle takeLog;
    private static MethodHandle failNext;

    private NcclStubProgram() {}

    public static void main(String[] args) throws Throwable {
        dir = args[1];
        switch (args[0]) {
            case "calls" -> calls();
            case "versions" -> versions();
            default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
        }
    }

    /** Every call the binding makes, on a stub of NCCL 2.28.9, and the failures it turns into exceptions. */
    private static void calls() throws Throwable {
        Nccl nccl = Nccl.load(dir + "/libnccl-stub.so");
        stubControls(dir + "/libnccl-stub.so");
        System.out.println("loaded NCCL " + nccl.version());
        UniqueId id = nccl.newUniqueId();
        step("newUniqueId " + id.hex().substring(0, 8) + ".." + id.hex().substring(248));
        Cuda.init();
        try (Context context = Context.retainPrimary(Device.get(0));
             Stream stream = Stream.create(context, true);
             DeviceBuffer a = DeviceBuffer.allocate(context, 256);
             DeviceBuffer b = DeviceBuffer.allocate(context, 512)) {
            name(a.address(), "a");
            name(b.address(), "b");
            name(b.address() + 256, "b+256");
            name(stream.handle().address(), "stream");
            Communicator comm = Communicator.create(context, nccl, id, 1, 2,
                    CommunicatorOptions.DEFAULTS.withTimeout(Duration.ofSeconds(30)).withName("stub"));
            step("create: rank " + comm.rank() + " of " + comm.size());
            collectives(comm, a, b, stream);
            BufferRegistration registration = comm.register(a);
            step("register");
            registration.close();
            step("deregister");
            step("asyncError " + comm.asyncError());
            comm.await(stream);
            step("await");
            Optional<Communicator> half = comm.split(0, 5,
                    CommunicatorOptions.DEFAULTS.withName("half").withBlocking(true));
            step("split: rank " + half.orElseThrow().rank() + " of " + half.orElseThrow().size());
            half.orElseThrow().close();
            step("split closed");
            step("no color: " + comm.split(Communicator.NO_COLOR, 0, CommunicatorOptions.DEFAULTS).isPresent());
            failures(comm, a, stream);
        }
        refusals();
    }

    private static void collectives(Communicator comm, DeviceBuffer a, DeviceBuffer b, Stream stream) {
        comm.allReduce(a, a, DataType.FLOAT32, ReduceOp.SUM, stream);
        step("allReduce");
        comm.broadcast(a, b.slice(256, 256), DataType.INT32, 1, stream);
        step("broadcast");
        comm.allGather(a, b, DataType.FLOAT32, stream);
        step("allGather");
        comm.reduceScatter(b, a, DataType.FLOAT64, ReduceOp.MAX, stream);
        step("reduceScatter");
        comm.group(() -> {
            comm.send(a, DataType.UINT8, 0, stream);
            comm.recv(b.slice(256, 256), DataType.FLOAT16, 0, stream);
        });
        step("group");
    }

    /** An invalid argument leaves the communicator usable; another error aborts it, and later calls say so. */
    private static void failures(Communicator comm, DeviceBuffer a, Stream stream) throws Throwable {
        failNext("ncclAllReduce", NcclResult.INVALID_ARGUMENT, "stub: count refused");
        try {
            comm.allReduce(a, a, DataType.FLOAT32, ReduceOp.SUM, stream);
        } catch (NcclCallException e) {
            step("refused: " + e.getMessage() + ", aborted " + comm.abortReason().isPresent());
        }
        failNext("ncclSend", NcclResult.REMOTE_ERROR, "stub: peer gone");
        try {
            comm.send(a, DataType.UINT8, 0, stream);
        } catch (NcclCallException e) {
            step("failed: " + e.getMessage() + ", aborted: " + comm.abortReason().orElse("no"));
        }
        try {
            comm.allReduce(a, a, DataType.FLOAT32, ReduceOp.SUM, stream);
        } catch (CommunicatorAbortedException e) {
            step("after the abort: " + e.getMessage());
        }
        comm.close();
        step("closed");
    }

    /** A process calls one NCCL library: another file is refused, the same file under another name is not. */
    private static void refusals() {
        try {
            Nccl.load(dir + "/libnccl-other.so");
        } catch (NcclUnavailableException e) {
            System.out.println("other file: " + e.getMessage().replace(dir, "DIR"));
        }
        System.out.println("same file: NCCL " + Nccl.load(dir + "/libnccl-link.so").version());
    }

    /**
     * A release too old is refused before it is bound; a supported release that lacks a function fails at the call
     * of that function, each time, and nowhere else.
     */
    private static void versions() throws Throwable {
        try {
            Nccl.load(dir + "/libnccl-2.18.so");
        } catch (NcclUnavailableException e) {
            System.out.println("too old: " + e.getMessage().replace(dir, "DIR"));
        }
        Nccl nccl = Nccl.load(dir + "/libnccl-noregister.so");
        stubControls(dir + "/libnccl-noregister.so");
        System.out.println("loaded NCCL " + nccl.version());
        Cuda.init();
        try (Context context = Context.retainPrimary(Device.get(0));
             Stream stream = Stream.create(context, true);
             DeviceBuffer a = DeviceBuffer.allocate(context, 256)) {
            name(a.address(), "a");
            name(stream.handle().address(), "stream");
            Communicator comm = Communicator.create(context, nccl, nccl.newUniqueId(), 0, 1,
                    CommunicatorOptions.DEFAULTS.withBlocking(true));
            step("create: rank " + comm.rank() + " of " + comm.size());
            for (int i = 0; i < 2; i++) {
                try {
                    comm.register(a);
                } catch (NcclMissingFunctionException e) {
                    step("register: " + e.getMessage().replace(dir, "DIR"));
                }
            }
            comm.allReduce(a, a, DataType.INT64, ReduceOp.MIN, stream);
            step("allReduce");
            comm.close();
            step("closed");
        }
    }

    /** Links the stub's own functions: the log of calls, and the failure of a call to come. */
    private static void stubControls(String library) {
        SymbolLookup stub = SymbolLookup.libraryLookup(Path.of(library), Arena.global());
        Linker linker = Linker.nativeLinker();
        takeLog = linker.downcallHandle(stub.find("ncclStubTakeLog").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS));
        failNext = linker.downcallHandle(stub.find("ncclStubFailNext").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    }

    private static void failNext(String function, NcclResult result, String lastError) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            failNext.invokeExact(arena.allocateFrom(function), result.code(), arena.allocateFrom(lastError));
        }
    }

    private static void name(long address, String name) {
        NAMES.put("0x" + Long.toHexString(address), name);
    }

    /** Prints {@code what}, then the calls logged since the last step, with the known addresses named. */
    private static void step(String what) {
        String log;
        try {
            log = ((MemorySegment) takeLog.invokeExact()).reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("ncclStubTakeLog: " + t, t);
        }
        Matcher m = ADDRESS.matcher(log);
        StringBuilder named = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(named, Matcher.quoteReplacement(NAMES.getOrDefault(m.group(), m.group())));
        }
        m.appendTail(named);
        System.out.println(what + " | " + named);
    }
}
