package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.StubLibraries;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torch reader's whole path without a GPU: a child JVM opens and closes shares ('c', and 'e' of
 * another process, whose chunks it takes with {@code pidfd_getfd}) through real downcalls into the stub driver of
 * {@code scripts/stub-driver} (built here with {@code cc}), whose calls succeed at once. The counter file is laid
 * out as torch's; its slots are read as torch's producer would read them.
 */
class TorchReaderStubDriverTest {
    private static final int BLOCKS = 3;
    private static final Path SHM = TorchCounterFile.DEFAULT_DIRECTORY;

    @Test
    void sharesOpenOncePerStorageAndEverySlotIsGivenBackAtClose(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        readEveryShare(library);
    }

    @Test
    void expandableSegmentsOfAnotherProcessOpenTheSameWayAndLeaveNoDescriptor(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        try (JavaProcess.Interactive producer = JavaProcess.start(JavaProcess.command(StubChunkProducerChild.class,
                List.of(), Integer.toString(2 * BLOCKS)))) {
            String[] ready = producer.readLine(Duration.ofSeconds(60)).split(" ");
            assertEquals("ready", ready[0], String.join(" ", ready));
            readEveryShare(library, ready[1], String.join(",", Arrays.copyOfRange(ready, 2, ready.length)));
            assertEquals(0, producer.finish(Duration.ofSeconds(30)).exitCode(), "the producer's exit");
        }
    }

    @Test
    void expandableSegmentsWhoseChunksCameOverTheSocketOpenWithoutPidfd(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        // the producer allows no process to take its descriptors and closes its own once sent: the socket only
        try (JavaProcess.Interactive producer = JavaProcess.start(JavaProcess.command(StubChunkProducerChild.class,
                List.of(), Integer.toString(2 * BLOCKS), "socket"))) {
            String[] ready = producer.readLine(Duration.ofSeconds(60)).split(" ");
            assertEquals(List.of("ready", "socket"), List.of(ready[0], ready[2]), String.join(" ", ready));
            readEveryShare(library, ready[1], "socket:" + ready[3]);
            assertEquals(0, producer.finish(Duration.ofSeconds(30)).exitCode(), "the producer's exit");
        }
    }

    /**
     * Runs {@link StubDriverReaderChild} on the stub driver over {@value #BLOCKS} blocks of a counter file laid out
     * as torch's ({@code 'c'}, or {@code 'e'} with {@code producer}: its pid and chunk descriptors) and checks what
     * it prints and the slots it leaves.
     */
    private static void readEveryShare(Path library, String... producer) throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "skipped: no writable " + SHM);
        String counter = CounterFiles.create(SHM, 4 * BLOCKS);
        Path file = SHM.resolve(counter.substring(1));
        try {
            List<String> args = new ArrayList<>(List.of(counter, Integer.toString(BLOCKS)));
            args.addAll(List.of(producer));
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120),
                    JavaProcess.command(StubDriverReaderChild.class, List.of(), args.toArray(String[]::new)),
                    Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            List<String> lines = r.stdout().lines().toList();
            boolean socket = producer.length > 1 && producer[1].startsWith("socket:");
            lines.stream().filter(l -> l.startsWith("refused ") && !socket).findFirst().ifPresent(refused -> Assumptions
                    .abort("skipped: this machine does not let a reader take another process's descriptors: "
                            + refused));
            assertEquals(List.of(
                    // per block: a first share (m), a second share of its storage (h), a first share of the
                    // block's other storage (m, the block mapped already), a second share of that (h)
                    "opened 12 mhmhmhmhmhmh blocks=3 storages=6",
                    // the second shares' slots given back at once, the first shares' held
                    "slots 101010101010",
                    // and for 'e', the producer's pidfd and the chunks' descriptors closed
                    "closed blocks=0 storages=0 descriptors kept 0"), lines, r.stderr());
            try (TorchCounterFile f = TorchCounterFile.open(SHM, counter)) {
                for (int slot = 0; slot < 4 * BLOCKS; slot++) {
                    assertEquals(0, f.slot(slot), "slot " + slot + " after the reader closed");
                }
            }
            String child = "cudaipc4j-" + r.pid() + "-";
            try (var entries = Files.list(SHM)) {
                assertEquals(List.of(), entries.map(p -> p.getFileName().toString())
                        .filter(n -> n.startsWith(child)).toList(), "the reader's segments in " + SHM);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
