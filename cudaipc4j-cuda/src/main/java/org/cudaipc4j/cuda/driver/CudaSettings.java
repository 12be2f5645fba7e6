package org.cudaipc4j.cuda.driver;

import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}); public for the tests that start processes without a driver. */
public final class CudaSettings {
    private CudaSettings() {}

    private static final String LIBCUDA_DEFAULT = "libcuda.so.1,libcuda.so";

    /** The driver library names or paths {@link CudaLibrary} tries, in order; blank counts as not set. */
    public static final Setting<List<String>> LIBCUDA = Setting.property("cudaipc4j.libcuda", LIBCUDA_DEFAULT,
            "The driver library names or paths to try, comma-separated; the first that loads wins",
            new LibraryNames());

    /** Measurement switch: {@link Prelink} links nothing ahead of the calls. */
    static final Setting<Boolean> NO_PRELINK = Setting.switchProperty("cudaipc4j.noPrelink",
            "true: each driver function is linked on its first call instead of in the background ahead of it");

    /**
     * Reads {@link #LIBCUDA}: a class rather than a method reference, as {@link Setting} asks, since every child
     * reads it on its way to its driver, and a child's first lambda costs it milliseconds of linking.
     */
    private static final class LibraryNames implements Setting.Parse<List<String>> {
        @Override
        public List<String> from(String text) {
            List<String> names = new ArrayList<>();
            for (String name : (text.isBlank() ? LIBCUDA_DEFAULT : text).split(",")) {
                if (!name.isBlank()) {
                    names.add(name.strip());
                }
            }
            return List.copyOf(names);
        }
    }
}
