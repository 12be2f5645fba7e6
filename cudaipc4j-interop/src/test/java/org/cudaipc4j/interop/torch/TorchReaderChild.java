package org.cudaipc4j.interop.torch;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DescriptorJson;

/**
 * A Java reader for {@link TorchReaderGpuTest}: reads the producer's share lines from stdin up to {@code end},
 * opens every share, says {@code opened <n>} and holds them until it is killed (or its input ends).
 */
public final class TorchReaderChild {
    private TorchReaderChild() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<JsonObject> lines = new ArrayList<>();
        for (String l = in.readLine(); l != null && !l.equals("end"); l = in.readLine()) {
            lines.add(JsonParser.parseString(l).getAsJsonObject());
        }
        String uuid = lines.getFirst().get("device_uuid").getAsString();
        Context ctx = Context.retainPrimary(Device.byUuid(DescriptorJson.parseUuid(uuid)));
        TorchLeases leases = TorchLeases.start();
        TorchReader reader = new TorchReader(ctx, leases);
        Stream stream = Stream.create(ctx, false);
        List<TorchTensorView> views = new ArrayList<>();
        for (JsonObject o : lines) {
            views.add(reader.open(TorchCapturesTest.share(o), stream));
        }
        stream.synchronize();
        System.out.println("opened " + views.size());
        System.out.flush();
        while (in.readLine() != null) {
            // held until killed
        }
    }
}
