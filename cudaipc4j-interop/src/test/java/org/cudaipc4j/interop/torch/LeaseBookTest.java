package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lease book's pages: grown by the reader, every one found by the watcher's view of the first. */
class LeaseBookTest {
    @Test
    void everyPageIsFoundFromTheFirstAndEntriesMapToTheirPages() {
        try (LeaseBook book = LeaseBook.create(3)) {
            assertEquals(3, book.capacity());
            book.grow();
            book.grow();
            book.grow();
            assertEquals(3 + 6 + 12 + 24, book.capacity(), "each page twice the last");
            int[] indexes = {0, 2, 3, 8, 9, 20, 21, 44};
            for (int i : indexes) {
                book.hold(i, "/torch_1_2_" + i, 100 + i);
            }
            assertThrows(IndexOutOfBoundsException.class, () -> book.hold(45, "/torch_1_2_3", 1));
            try (LeaseBook watcher = LeaseBook.open(book.name())) {
                assertEquals(3, watcher.capacity(), "the first page only, until read");
                List<LeaseBook.Held> held = watcher.held();
                assertEquals(45, watcher.capacity(), "every page linked from the first");
                assertEquals(indexes.length, held.size());
                for (int n = 0; n < indexes.length; n++) {
                    int i = indexes[n];
                    assertEquals(new LeaseBook.Held(i, "/torch_1_2_" + i, 100 + i), held.get(n));
                }
                assertTrue(watcher.markReleased(21));
                assertFalse(book.markReleased(21), "released once, whichever process marks it");
                assertEquals(LeaseBook.RELEASED, book.state(21));
                assertEquals(book.paths(), watcher.paths());
            }
            assertTrue(book.paths().stream().allMatch(Files::exists), "the watcher's view removes nothing");
        }
    }

    @Test
    void theReadersCloseRemovesEveryPage() {
        List<Path> pages;
        try (LeaseBook book = LeaseBook.create(1)) {
            book.grow();
            book.grow();
            pages = book.paths();
            assertEquals(3, pages.size());
        }
        assertTrue(pages.stream().noneMatch(Files::exists), String.valueOf(pages));
    }
}
