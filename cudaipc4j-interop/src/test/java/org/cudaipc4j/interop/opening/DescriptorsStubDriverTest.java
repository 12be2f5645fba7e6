package org.cudaipc4j.interop.opening;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.interop.torch.CounterFiles;
import org.cudaipc4j.interop.torch.TorchCounterFile;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.StubLibraries;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Descriptors#open} without a GPU: a child JVM ({@link OpenStubDriverChild}) opens every kind of descriptor
 * through real downcalls into the stub driver of {@code scripts/stub-driver} (its calls succeed at once, its copies
 * read zeros) and prints what the test checks: the phases each kind runs, the holder table signed into and out of,
 * the file descriptors given staying the caller's and those taken by number closed, a torch share's slot held and
 * given back, and nothing left in the context after the closes.
 */
class DescriptorsStubDriverTest {
    private static final Path SHM = TorchCounterFile.DEFAULT_DIRECTORY;
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private static List<String> run(Path library, String... args) {
        JavaProcess.Result r = JavaProcess.runCommand(LIMIT, JavaProcess.command(OpenStubDriverChild.class, List.of(),
                args), Map.of("LD_LIBRARY_PATH", library.getParent().toString()));
        assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
        return r.stdout().lines().toList();
    }

    @Test
    void legacyVmmPoolAndBareHandlesOpenWithTheirPhasesAndGiveEverythingBack(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        assertEquals(List.of(
                // signed into the exporter's table while mapped, the tensor's layout kept, the bytes read
                "legacy 4096 true held true zeros true",
                "legacy phases [hold, ipc_open, event_open, event_wait, event_destroy, view]",
                "legacy closed, held []",
                // the caller's descriptors: nothing taken, nothing closed
                "pool 4096 null phases [pool_import, pointer_import, view]",
                "vmm 2097152 phases [vmm_map, view]",
                "empty 0 at 0",
                "given descriptor still open true",
                // a bare 'c' handle: the whole block, as the driver sizes it (the stub: 4 GiB)
                "bare 4294967296 null",
                "resources left 0"), run(library, "exports"));
    }

    @Test
    void aPoolExportsDescriptorTakenByNumberIsClosedOnceImported(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        List<String> lines = run(library, "pidfd");
        lines.stream().filter(l -> l.startsWith("refused ")).findFirst().ifPresent(refused -> Assumptions.abort(
                "skipped: this machine does not let a process take its own descriptors: " + refused));
        assertEquals(List.of(
                "pool by number 4096 phases [pidfd, pool_import, pointer_import, fd_close, view] descriptors kept 0",
                "closed, descriptors kept 0",
                "resources left 0"), lines);
    }

    @Test
    void torchSharesOpenThroughAReaderOfTheOpensOwnOrOfTheCallers(@TempDir Path tmp) throws Exception {
        Path library = StubLibraries.build(StubLibraries.CUDA_DRIVER, tmp.resolve("libcuda.so.1"));
        Assumptions.assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "skipped: no writable " + SHM);
        String counter = CounterFiles.create(SHM, 4);
        try {
            assertEquals(List.of(
                    "own reader 4096 hit false slots 1111",
                    "own reader closed, slots 0111",
                    // a second share of the open storage: a hit, its slot given back at once
                    "caller's reader hits false true same true blocks 1 slots 0101",
                    "phases [key, counter, book, block_lookup, ipc_open, event_open, event_wait, event_destroy, view]",
                    "caller's reader closed, blocks 0 slots 0001",
                    "resources left 0"), run(library, "torch", counter));
        } finally {
            Files.deleteIfExists(SHM.resolve(counter.substring(1)));
        }
    }
}
