package org.cudaipc4j.driver;

/**
 * Links every {@link CuDriver} function's downcall handle on a background daemon thread.
 *
 * <p>Linking a handle costs milliseconds the first time a descriptor is seen (the FFM linker generates a stub for
 * it); doing it while the main thread waits in the driver (cuInit, context creation) takes that off the critical
 * path of a short-lived process. A holder the main thread reaches first is simply linked there; class
 * initialisation makes the two safe together. Nothing is called: only handles are created.
 */
public final class Prelink {
    /** System property that turns prelinking off (for measuring what it saves). */
    public static final String DISABLE_PROPERTY = "cudaipc4j.noPrelink";

    private Prelink() {}

    /**
     * Starts the background linking and returns its thread, or null when {@value #DISABLE_PROPERTY} is true.
     * Does nothing when the driver is not there.
     */
    public static Thread startInBackground() {
        if (Boolean.getBoolean(DISABLE_PROPERTY)) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("cudaipc4j-prelink").start(() -> {
            if (!CudaLibrary.isAvailable()) {
                return;
            }
            ClassLoader loader = CuDriver.class.getClassLoader();
            for (String symbol : CuSymbols.TABLE.keySet()) {
                try {
                    // Each function's handle lives in a holder class named after it, linked when initialised.
                    Class.forName(CuDriver.class.getName() + "$" + symbol, true, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // No holder for this symbol, or it cannot link: the real call reports that.
                }
            }
        });
    }
}
