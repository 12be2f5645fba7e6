package org.cudaipc4j.interop.torch;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.testing.AddressSpace;

/**
 * The Java reader of {@link ReaderAddressSpaceGpuTest}, a process of its own so that its {@code VmSize} is the
 * reader's: reads the producer's share lines from stdin up to {@code end}; takes its {@code VmSize} once the context,
 * the leases, a stream and the reader exist and the first {@code seq-} share has been opened and closed (the JVM's
 * compiler threads the open path starts, each with its stack and malloc arena, are the JVM's, not the reader's); opens
 * the other {@code seq-} shares one after another, each checked against the producer's sha256 and closed, then opens
 * the {@code held-} shares and holds them all. After every open and every close it reads its {@code VmSize} and the bytes its open views' blocks
 * cover (what the reader must map: each distinct block's chunks); per phase it prints the moment nearest to
 * {@link AddressSpace#bound} (or over it): {@code <phase> opens=<n> before=<bytes> vmsize=<bytes> mapped=<bytes>
 * at=<case>}. Then it closes every view and prints {@code closed vmsize=<bytes> blocks=<n>}. A sha256 that differs
 * ends it with status 1.
 */
public final class AddressSpaceReaderChild {
    private AddressSpaceReaderChild() {}

    /** The moment of a phase nearest to the bound. */
    private static final class Worst {
        final String phase;
        final long before;
        int opens;
        long excess = Long.MIN_VALUE;
        long vmSize;
        long mapped;
        String at = "";

        Worst(String phase, long before) {
            this.phase = phase;
            this.before = before;
        }

        void see(long mappedNow, String name) {
            long v = AddressSpace.vmSize();
            long e = AddressSpace.excess(before, mappedNow, v);
            if (e > excess) {
                excess = e;
                vmSize = v;
                mapped = mappedNow;
                at = name;
            }
        }

        void print() {
            System.out.println(phase + " opens=" + opens + " before=" + before + " vmsize=" + vmSize + " mapped="
                    + mapped + " at=" + at);
            System.out.flush();
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<JsonObject> sequential = new ArrayList<>();
        List<JsonObject> held = new ArrayList<>();
        for (String l = in.readLine(); l != null && !l.equals("end"); l = in.readLine()) {
            JsonObject o = JsonParser.parseString(l).getAsJsonObject();
            (o.get("case").getAsString().startsWith("seq-") ? sequential : held).add(o);
        }
        String uuid = held.getFirst().get("device_uuid").getAsString();
        try (Context ctx = Context.retainPrimary(Device.byUuid(DescriptorJson.parseUuid(uuid)));
                TorchLeases leases = TorchLeases.start()) {
            Stream stream = Stream.create(ctx, false);
            TorchReader reader = new TorchReader(ctx, leases);
            // The first share opened and closed first: the compiler threads the JIT starts for the open path (each
            // with its stack and malloc arena) are the JVM's, not the reader's.
            TorchShare first = TorchCapturesTest.share(sequential.getFirst());
            try (TorchTensorView view = reader.open(first, stream)) {
                check(sequential.getFirst(), view, stream);
            }
            long before = AddressSpace.vmSize();

            Worst one = new Worst("sequential", before);
            one.opens++; // the first, above
            for (JsonObject o : sequential.subList(1, sequential.size())) {
                TorchShare share = TorchCapturesTest.share(o);
                TorchTensorView view = reader.open(share, stream);
                one.opens++;
                check(o, view, stream);
                one.see(share.handle().mappedBytes(), o.get("case").getAsString());
                view.close();
                one.see(0, o.get("case").getAsString() + " closed");
            }
            one.print();

            Worst all = new Worst("held", before);
            Map<String, Long> blocks = new HashMap<>();
            long mapped = 0;
            List<TorchTensorView> views = new ArrayList<>();
            for (JsonObject o : held) {
                TorchShare share = TorchCapturesTest.share(o);
                views.add(reader.open(share, stream));
                all.opens++;
                check(o, views.getLast(), stream);
                if (blocks.putIfAbsent(TorchReader.blockKey(share.handle()), share.handle().mappedBytes()) == null) {
                    mapped += share.handle().mappedBytes();
                }
                all.see(mapped, o.get("case").getAsString());
            }
            all.print();
            if (reader.mappedBlocks() != blocks.size()) {
                System.out.println("BLOCKS the reader maps " + reader.mappedBlocks() + " blocks, the shares name "
                        + blocks.size());
                System.exit(1);
            }
            for (TorchTensorView v : views) {
                v.close();
            }
            System.out.println("closed vmsize=" + AddressSpace.vmSize() + " blocks=" + reader.mappedBlocks());
            stream.close();
        }
        System.out.flush();
    }

    /**
     * The view's bytes against the producer's sha256; a difference ends this process with status 1. The producer's
     * tensors are contiguous from their storage's start: their bytes are hashed whole, not element by element.
     */
    private static void check(JsonObject o, TorchTensorView view, Stream stream) throws Exception {
        stream.synchronize();
        TensorLayout l = view.layout();
        if (l.offset() != 0 || l.shape().length != 1 || l.strides()[0] != 1) {
            System.out.println("LAYOUT " + o.get("case").getAsString() + " is not contiguous from 0: " + l);
            System.exit(1);
        }
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                view.read(0, Math.toIntExact(l.extentBytes()))));
        if (!sha.equals(o.get("sha256").getAsString())) {
            System.out.println("MISMATCH " + o.get("case").getAsString() + " sha256 " + sha + ", the producer's "
                    + o.get("sha256").getAsString());
            System.exit(1);
        }
    }
}
