package org.cudaipc4j.base;

/**
 * Closing several resources where each must be tried even when an earlier one fails, and gathering the failures:
 * the first is thrown, later ones ride along as suppressed, none is dropped.
 */
public final class Closing {
    private Closing() {}

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
                failure = firstOf(failure, r);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Closes {@code resource}, ignoring whatever its close throws: for what is closed while giving up, when closing
     * is all that is left to do and a failure would change nothing.
     *
     * @param resource what to close
     */
    public static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            // closing is all that is left to do
        }
    }

    /**
     * Closes {@code resource} after {@code failure} ended what used it: a failure of the close is attached to
     * {@code failure} as suppressed, which the caller then throws.
     *
     * @param resource what to close
     * @param failure the failure that is thrown
     */
    public static void closeAfter(AutoCloseable resource, Throwable failure) {
        try {
            resource.close();
        } catch (Exception suppressed) {
            failure.addSuppressed(suppressed);
        }
    }

    /**
     * {@return the failure to throw: {@code first}, with {@code next} attached as suppressed; {@code next} when
     * there was none before}
     *
     * @param <T> the failure's type
     * @param first the failure so far, or null
     * @param next a later failure
     */
    public static <T extends Throwable> T firstOf(T first, T next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
