package org.cudaipc4j.examples;

import org.cudaipc4j.base.Setting;

/** The settings this module reads (see {@link Setting}). */
final class ExamplesSettings {
    private ExamplesSettings() {}

    /** Python's module path, passed on to the Python process of an example after the package's folder. */
    static final Setting<String> PYTHONPATH = Setting.variable("PYTHONPATH", null,
            "Passed on to the Python process the weight-sync examples start, after the cudaipc4j package's folder");
}
