package org.cudaipc4j.coord;

import java.nio.file.FileAlreadyExistsException;
import java.util.function.Supplier;

/**
 * Makes a file, folder or socket under a name of its own. The names are random, yet another process (another user's,
 * too) may make one of them first, by chance or because it saw the name: the maker then takes the next name of its
 * source, and never opens nor removes what it found there. A name is handed to anyone only once the thing exists
 * with its final owner and mode.
 */
public final class FreshName {
    /** How many names a maker tries: this many taken random names in a row are no chance, and end the attempt. */
    public static final int TRIES = 32;

    private FreshName() {}

    /**
     * Makes one thing from a name; {@link FileAlreadyExistsException} says the name was taken, and changes nothing.
     *
     * @param <T> what is made
     */
    @FunctionalInterface
    public interface Maker<T> {
        /**
         * {@return what was made under {@code name}}
         *
         * @param name a name from the source
         * @throws FileAlreadyExistsException when something has that name already
         */
        T make(String name) throws FileAlreadyExistsException;
    }

    /**
     * {@return what {@code maker} made under the first name of {@code names} that was free}
     *
     * @param names where names come from (random ones; tests give names that are taken)
     * @param maker makes the thing, or says that the name is taken
     * @param <T> what is made
     * @throws CoordinationException when {@value #TRIES} names in a row were taken
     */
    public static <T> T make(Supplier<String> names, Maker<T> maker) {
        FileAlreadyExistsException last = null;
        for (int i = 0; i < TRIES; i++) {
            try {
                return maker.make(names.get());
            } catch (FileAlreadyExistsException taken) {
                last = taken;
            }
        }
        throw new CoordinationException(TRIES + " names in a row were taken, the last " + last.getFile()
                + ": another process makes the names this one picks", last);
    }
}
