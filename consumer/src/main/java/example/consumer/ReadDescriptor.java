package example.consumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;

/** Prints the kind, size and device of each descriptor file named, one line each. */
public final class ReadDescriptor {
    private ReadDescriptor() {
    }

    public static void main(String[] args) throws IOException {
        for (String file : args) {
            Descriptor d = DescriptorJson.fromJson(Files.readAllBytes(Path.of(file)));
            System.out.println(d.kind().code() + " " + d.bytes() + " " + DescriptorJson.uuidString(d.deviceUuid()));
        }
    }
}
