package org.cudaipc4j.cuda;

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
        RuntimeException failure = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException r = e instanceof RuntimeException re ? re
                        : new IllegalStateException("closing " + resource + " failed", e);
                if (failure == null) {
                    failure = r;
                } else {
                    failure.addSuppressed(r);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
