package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.cudaipc4j.coord.FreshName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link TorchCounterFile#open} refuses, each in one line, and what it maps; names that {@link
 * TorchCounterFile#create} finds taken.
 */
class TorchCounterFileTest {
    @TempDir
    Path dir;

    private static void oneLine(TorchInteropException e, String part) {
        assertTrue(e.getMessage().contains(part), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aTorchLaidOutFileIsMappedWithItsSlots() {
        TorchCounterFile made = TorchCounterFile.create(dir, 0);
        made.set(7, 3);
        try (TorchCounterFile opened = TorchCounterFile.open(dir, made.name())) {
            assertEquals(3, opened.slot(7));
            assertEquals(1, opened.processCount());
        } finally {
            made.delete();
        }
    }

    @Test
    void aLinkADirectoryAFileOfAnotherSizeAndNoFileAreRefused() throws Exception {
        TorchCounterFile target = TorchCounterFile.create(dir, 0);
        try {
            Files.createSymbolicLink(dir.resolve("torch_1_2_3"), target.path());
            oneLine(assertThrows(TorchInteropException.class, () -> TorchCounterFile.open(dir, "/torch_1_2_3")),
                    "cannot map torch reference-counter file");
            Files.createDirectory(dir.resolve("torch_1_2_4"));
            oneLine(assertThrows(TorchInteropException.class, () -> TorchCounterFile.open(dir, "/torch_1_2_4")),
                    "cannot map torch reference-counter file");
            Files.write(dir.resolve("torch_1_2_5"), new byte[100]);
            oneLine(assertThrows(TorchInteropException.class, () -> TorchCounterFile.open(dir, "/torch_1_2_5")),
                    "has 100 bytes, torch's have");
            oneLine(assertThrows(TorchInteropException.class, () -> TorchCounterFile.open(dir, "/torch_1_2_6")),
                    "does not exist: the producer has exited");
        } finally {
            target.delete();
        }
    }

    @Test
    void aFifoIsRefusedBySize() throws Exception {
        Path fifo = dir.resolve("torch_1_2_7");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, p.waitFor());
        oneLine(assertThrows(TorchInteropException.class, () -> TorchCounterFile.open(dir, "/torch_1_2_7")),
                "has 0 bytes, torch's have");
    }

    @Test
    void aTakenNameIsPassedOverAndItsFileLeftAsItIs() throws Exception {
        Path taken = Files.write(dir.resolve("torch_1_2_8"), new byte[] {42});
        Iterator<String> names = List.of("/torch_1_2_8", "/torch_1_2_9").iterator();
        TorchCounterFile made = TorchCounterFile.create(dir, names::next);
        try {
            assertEquals("/torch_1_2_9", made.name());
            assertEquals(TorchCounterFile.FILE_BYTES, Files.size(made.path()));
            assertArrayEquals(new byte[] {42}, Files.readAllBytes(taken));
        } finally {
            made.delete();
        }
        oneLine(assertThrows(TorchInteropException.class, () -> TorchCounterFile.create(dir, () -> "/torch_1_2_8")),
                "cannot make a torch reference-counter file in " + dir + ": " + FreshName.TRIES
                        + " names in a row were taken");
        assertArrayEquals(new byte[] {42}, Files.readAllBytes(taken));
    }
}
