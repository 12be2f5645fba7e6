package org.cudaipc4j.testing;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * What this JVM can name a file. Outside ASCII that depends on the locale it started in: under {@code POSIX} (a
 * fresh account with no {@code LANG}) file names are ASCII and {@link Path#of} refuses any other character, so a
 * test that makes such a name makes it only where it can.
 */
public final class FileNames {
    private FileNames() {
    }

    /**
     * {@return true when a file name may hold {@code text} here}
     *
     * @param text characters for a file name
     */
    public static boolean canHold(String text) {
        try {
            Path.of(text);
            return true;
        } catch (InvalidPathException e) {
            return false;
        }
    }
}
