package org.cudaipc4j.cuda;

import org.cudaipc4j.base.Closing;

/** Closing several resources where each must be tried even when an earlier one fails. */
public final class Closeables {
    private Closeables() {}

    /**
     * Closes each non-null resource in the order given (pass them in reverse order of creation). The first
     * failure is thrown after all were tried, later ones attached to it as suppressed.
     *
     * @param resources what to close; null entries are skipped
     */
    public static void closeAll(AutoCloseable... resources) {
        Closing.closeAll(resources);
    }
}
