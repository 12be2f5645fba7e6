package org.cudaipc4j.coord;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** The room left in the shared-memory folder, checked before a segment is made and told when it did not fit. */
final class FreeSpace {
    private FreeSpace() {}

    /** Refuses a segment of {@code size} bytes that cannot fit in {@code dir}; an unreadable store is let through. */
    static void checkRoom(Path dir, String name, long size) {
        try {
            FileStore store = Files.getFileStore(dir);
            long usable = store.getUsableSpace();
            if (store.getTotalSpace() > 0 && size > usable) {
                throw new SharedSegmentException("cannot create shared segment " + dir.resolve(name) + " of " + size
                        + " bytes: only " + usable + " bytes free in " + dir);
            }
        } catch (NoSuchFileException e) {
            throw new SharedSegmentException("cannot create shared segment " + dir.resolve(name) + ": directory "
                    + dir + " does not exist");
        } catch (IOException e) {
            // Sizing reports the real error, if any.
        }
    }

    /** {@return " (N bytes free in DIR)", or nothing when the store cannot be read} */
    static String describe(Path dir) {
        try {
            return " (" + Files.getFileStore(dir).getUsableSpace() + " bytes free in " + dir + ")";
        } catch (IOException e) {
            return "";
        }
    }
}
