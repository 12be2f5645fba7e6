package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.testing.AddressSpace;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Java reader's address space grows with what it maps, not with the device's memory: a torch producer with
 * expandable segments ({@code torch_producer.py address-space}) shares 1 MiB bf16 tensors; a reader of its own
 * ({@link AddressSpaceReaderChild}) opens and closes {@value #SEQUENTIAL} of them one after another, then holds
 * {@value #HELD} at once, every tensor's bytes checked; at every moment its {@code VmSize} stays within
 * {@link AddressSpace#bound}: its size before the first open + 1.1 x the bytes mapped then + 1 GiB. torch's own
 * reader reserves about 1.125 x the device's memory per import and is over that bound at its first. Every slot goes
 * back and the producer frees everything.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class ReaderAddressSpaceGpuTest {
    static final int SEQUENTIAL = 2048;
    static final int HELD = 1024;
    private static final Duration WAIT = Duration.ofSeconds(240);

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void vmSizeStaysWithinTheBoundOverManyImportsAndWithAThousandHeld() throws Exception {
        try (JavaProcess.Interactive producer = ExpandableReaderGpuTest.producer("address-space",
                Integer.toString(SEQUENTIAL), Integer.toString(HELD))) {
            Map<String, JsonObject> lines = ExpandableReaderGpuTest.shares(producer);
            assertEquals(SEQUENTIAL + HELD, lines.size());
            TorchShare first = TorchCapturesTest.share(lines.get("held-0"));
            assertEquals(TorchHandle.Type.EXPANDABLE_SEGMENT, first.handle().type(),
                    "the producer did not use expandable segments: " + first.handle().describe());
            Map<String, String> phases = new HashMap<>();
            try (JavaProcess.Interactive reader = JavaProcess.start(JavaProcess.command(AddressSpaceReaderChild.class,
                    List.of()))) {
                for (JsonObject o : lines.values()) {
                    reader.writeLine(o.toString());
                }
                reader.writeLine("end");
                for (String phase : List.of("sequential", "held")) {
                    String line = reader.readLine(WAIT);
                    assertTrue(line.startsWith(phase + " "), line);
                    phases.put(phase, line);
                }
                String closed = reader.readLine(WAIT);
                assertTrue(closed.startsWith("closed ") && closed.endsWith(" blocks=0"), closed);
                JavaProcess.Result r = reader.finish(WAIT);
                assertEquals(0, r.exitCode(), r.describe());
            }
            withinTheBound(phases.get("sequential"), SEQUENTIAL);
            withinTheBound(phases.get("held"), HELD);
            ExpandableReaderGpuTest.producerFreesEverything(producer);
        }
    }

    /** A phase's line ({@code <phase> opens= before= vmsize= mapped= at=}) within the bound, after {@code opens}. */
    private static void withinTheBound(String line, int opens) {
        Map<String, String> f = new HashMap<>();
        // "at=" comes last and names the share with its step ("held-12 closed"): the rest of the line.
        int at = line.indexOf(" at=");
        assertTrue(line.indexOf(' ') > 0 && at > 0, line);
        for (String kv : line.substring(line.indexOf(' ') + 1, at).split(" ")) {
            f.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        f.put("at", line.substring(at + " at=".length()));
        assertEquals(Integer.toString(opens), f.get("opens"), line);
        long before = Long.parseLong(f.get("before"));
        long vmSize = Long.parseLong(f.get("vmsize"));
        long mapped = Long.parseLong(f.get("mapped"));
        long excess = AddressSpace.excess(before, mapped, vmSize);
        System.out.println(line + " (" + AddressSpace.gib(-excess) + " under the bound)");
        assertTrue(excess <= 0, "VmSize " + AddressSpace.gib(vmSize) + " at " + f.get("at") + " is "
                + AddressSpace.gib(excess) + " over the bound (before " + AddressSpace.gib(before) + " + 1.1 x "
                + AddressSpace.gib(mapped) + " mapped + 1 GiB): " + line);
    }
}
