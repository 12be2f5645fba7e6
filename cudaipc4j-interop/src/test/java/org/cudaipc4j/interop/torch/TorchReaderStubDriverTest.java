package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torch reader's whole path without a GPU: a child JVM warms up, opens and closes 'c' shares through real
 * downcalls into the stub driver of {@code scripts/stub-driver} (built here with {@code cc}), whose calls succeed at
 * once. The counter file is laid out as torch's; its slots are read as torch's producer would read them.
 */
class TorchReaderStubDriverTest {
    private static final int BLOCKS = 3;
    private static final Path SHM = TorchCounterFile.DEFAULT_DIRECTORY;

    /** The stub driver built into {@code dir}; the test is skipped without a checkout or a C compiler. */
    private static Path stubDriver(Path dir) throws IOException, InterruptedException {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        Path source = root.get().resolve("scripts/stub-driver/libcuda-stub.c");
        Path library = dir.resolve("libcuda.so.1");
        Process cc;
        try {
            cc = new ProcessBuilder("cc", "-O2", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o",
                    library.toString(), source.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("skipped: no C compiler (cc) to build the stub driver: " + e.getMessage());
            throw e;
        }
        String out = new String(cc.getInputStream().readAllBytes());
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS), "cc did not finish");
        assertEquals(0, cc.exitValue(), "cc failed: " + out);
        return library;
    }

    @Test
    void sharesOpenOncePerStorageAndEverySlotIsGivenBackAtClose(@TempDir Path tmp) throws Exception {
        Path library = stubDriver(tmp);
        Assumptions.assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "skipped: no writable " + SHM);
        String counter = CounterFiles.create(SHM, 4 * BLOCKS);
        Path file = SHM.resolve(counter.substring(1));
        try {
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120),
                    JavaProcess.command(StubDriverReaderChild.class, List.of(), counter, Integer.toString(BLOCKS)),
                    Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            assertEquals(List.of(
                    "warmed blocks=0 storages=0",
                    // the warm-up's share of this process's own memory ('e', taken by pidfd_getfd) opens
                    "own share opened true",
                    // its first opens map and unmap the chunk again and again: nothing of them stays open
                    "descriptors kept 0",
                    // per block: a first share (m), a second share of its storage (h), a first share of the
                    // block's other storage (m, the block mapped already), a second share of that (h)
                    "opened 12 mhmhmhmhmhmh blocks=3 storages=6",
                    // the second shares' slots given back at once, the first shares' held
                    "slots 101010101010",
                    "closed blocks=0 storages=0"), r.stdout().lines().toList(), r.stderr());
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
