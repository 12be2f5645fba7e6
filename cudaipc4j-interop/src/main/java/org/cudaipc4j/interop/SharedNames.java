package org.cudaipc4j.interop;

import java.util.regex.Pattern;

/**
 * The names a descriptor may give files in {@code /dev/shm} ({@code docs/interop-format.md}, "Names"): exactly what
 * their producers make, so a name from another process never reaches another file. Both are printable ASCII with no
 * {@code /} past the first character and no {@code ..}; the Python reader checks the same patterns with the same
 * refusal.
 */
public final class SharedNames {
    /** {@code exporter.holders}: coord's {@code ExportHolders}, {@code cudaipc4j-<pid>-<16 hex digits>-holders}. */
    public static final Pattern HOLDERS = Pattern.compile("cudaipc4j-[1-9][0-9]{0,9}-[0-9a-f]{16}-holders");
    /** {@code torch.ref_counter_file}: torch's {@code /torch_<pid>_<random>_<n>} (older torch: no {@code _<n>}). */
    public static final Pattern REF_COUNTER_FILE = Pattern.compile("/torch_[0-9]{1,10}_[0-9]{1,20}(_[0-9]{1,10})?");

    private SharedNames() {}

    /**
     * Checks a holder table's name.
     *
     * @param name the name
     * @throws IllegalArgumentException naming the field, the form and the name (escaped)
     */
    public static void checkHolders(String name) {
        check(name, HOLDERS, "exporter.holders", "a holder table's name (cudaipc4j-<pid>-<16 hex digits>-holders)");
    }

    /**
     * Checks torch's counter file's name.
     *
     * @param name the name
     * @throws IllegalArgumentException naming the field, the form and the name (escaped)
     */
    public static void checkRefCounterFile(String name) {
        check(name, REF_COUNTER_FILE, "torch.ref_counter_file",
                "a torch counter file's name (/torch_<pid>_<random>_<n>)");
    }

    private static void check(String name, Pattern form, String field, String what) {
        if (name == null || !form.matcher(name).matches()) {
            throw new IllegalArgumentException("descriptor: field '" + field + "' must be " + what + ", got "
                    + (name == null ? "null" : JsonValues.shown(name)));
        }
    }
}
