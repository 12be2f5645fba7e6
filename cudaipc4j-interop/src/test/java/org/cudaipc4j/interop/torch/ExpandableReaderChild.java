package org.cudaipc4j.interop.torch;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DescriptorJson;

/**
 * A Java reader for {@link ExpandableReaderGpuTest}'s PID-namespace case: reads one share line of the producer
 * from stdin, tries to open it (no lease watcher: the leases of this process only) and prints {@code OPENED} or
 * {@code REFUSED <the one line>}, then exits.
 */
public final class ExpandableReaderChild {
    private ExpandableReaderChild() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        JsonObject o = JsonParser.parseString(in.readLine()).getAsJsonObject();
        try (Context ctx = Context.retainPrimary(Device.byUuid(DescriptorJson.parseUuid(
                o.get("device_uuid").getAsString())));
                TorchLeases leases = TorchLeases.start(TorchCounterFile.DEFAULT_DIRECTORY, false, 16)) {
            Stream stream = Stream.create(ctx, false);
            TorchReader reader = new TorchReader(ctx, leases);
            try (TorchTensorView view = reader.open(TorchCapturesTest.share(o), stream)) {
                stream.synchronize();
                System.out.println("OPENED " + view.bytes());
            } catch (TorchInteropException e) {
                System.out.println("REFUSED " + e.getMessage());
            }
            stream.close();
        }
        System.out.flush();
    }
}
