package org.cudaipc4j.interop.torch;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.OwnedFd;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DescriptorJson;

/**
 * A Java reader for {@link TorchSocketWayGpuTest}, started without ptrace rights over the producer: reads one share
 * line of the producer from stdin and tries the plain open ({@code pidfd_getfd} for an expandable segment), printing
 * {@code OPENED} or {@code REFUSED <the one line>}; then receives {@code args[1]} shares over the producer's socket
 * {@code args[0]}, opens each with the fds that came with it and prints {@code <index> <sha256>}; closes every view
 * and prints {@code closed}.
 */
public final class SocketWayReaderChild {
    private static final Duration WAIT = Duration.ofSeconds(60);

    private SocketWayReaderChild() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        JsonObject plain = JsonParser.parseString(in.readLine()).getAsJsonObject();
        try (Context ctx = Context.retainPrimary(Device.byUuid(DescriptorJson.parseUuid(
                plain.get("device_uuid").getAsString())));
                TorchLeases leases = TorchLeases.start();
                FdChannel channel = FdChannel.connect(Path.of(args[0]), WAIT)) {
            Stream stream = Stream.create(ctx, false);
            TorchReader reader = new TorchReader(ctx, leases);
            try (TorchTensorView view = reader.open(TorchCapturesTest.share(plain), stream)) {
                stream.synchronize();
                System.out.println("OPENED " + view.bytes());
            } catch (TorchInteropException e) {
                System.out.println("REFUSED " + e.getMessage());
            }
            List<TorchTensorView> views = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(args[1]); i++) {
                try (FdMessage m = channel.receive(WAIT)) {
                    TorchShare share = TorchShare.of(DescriptorJson.fromJson(
                            new String(m.payload(), StandardCharsets.UTF_8)));
                    int[] fds = m.fds().stream().mapToInt(OwnedFd::value).toArray();
                    TorchTensorView view = reader.open(share, stream, null, fds.length == 0 ? null : fds);
                    views.add(view);
                    stream.synchronize();
                    System.out.println(i + " " + TorchReaderGpuTest.sha256(view));
                }
            }
            views.reversed().forEach(TorchTensorView::close);
            stream.close();
            System.out.println("closed");
        }
        System.out.flush();
    }
}
