package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The product's main code reads the environment and system properties through its settings classes alone
 * ({@code org.cudaipc4j.base.Setting}, declared in each module's {@code *Settings} class), so that
 * {@link SettingsDocumentedTest} sees every setting; the JVM's own facts below are the only other reads.
 */
class SettingReadsTest {
    private static final String READS = "(?:getProperty|getProperties|getenv|getInteger|getLong|getBoolean)";
    /** Every way to read a variable or property, a call (with the name when it is a literal) or a reference. */
    private static final Pattern READ = Pattern.compile("\\b(?:System|Integer|Long|Boolean)\\s*(?:\\.\\s*" + READS
            + "\\s*\\((?:\\s*\"([^\"]*)\")?|::\\s*" + READS + "\\b)");
    /** A declaration of a setting. */
    private static final Pattern DECLARATION = Pattern.compile(
            "\\bSetting\\s*\\.\\s*(variable|property|switchVariable|switchProperty)\\s*\\(");
    /** The one place that reads a setting. */
    private static final Path READER = Path.of("cudaipc4j-base/src/main/java/org/cudaipc4j/base/Setting.java");
    /**
     * The JVM's facts, which no one sets to configure cudaipc4j and which have no default of ours to declare: read
     * where used, by name (docs/settings.md, "The JVM's own properties").
     */
    private static final Set<String> JVM_PROPERTIES = Set.of("os.name", "os.arch", "java.home", "java.class.path",
            "jdk.module.path", "java.io.tmpdir", "user.home", "user.name", "native.encoding", "stdout.encoding",
            "stderr.encoding");

    private static Path root;
    private static Map<Path, String> sources;

    @BeforeAll
    static void read() throws IOException {
        Optional<Path> found = ProjectRoot.find();
        Assumptions.assumeTrue(found.isPresent(), "skipped: not run inside the project's checkout");
        root = found.get();
        sources = ProductSettings.mainSources(root);
        assertTrue(sources.size() > 100, "found only " + sources.size() + " main source files under " + root);
        assertTrue(sources.containsKey(root.resolve(READER)), READER + " is missing");
    }

    @Test
    void onlyTheSettingsAndTheJvmsOwnPropertiesAreRead() {
        List<String> elsewhere = new ArrayList<>();
        Set<String> jvmRead = new TreeSet<>();
        int settingReads = 0;
        for (var source : sources.entrySet()) {
            Matcher m = READ.matcher(source.getValue());
            while (m.find()) {
                if (root.relativize(source.getKey()).equals(READER)) {
                    settingReads++;
                } else if (m.group().matches("System\\s*\\.\\s*getProperty\\s*\\(.*")
                        && JVM_PROPERTIES.contains(m.group(1))) {
                    jvmRead.add(m.group(1));
                } else {
                    elsewhere.add(where(source.getKey(), source.getValue(), m.start()) + " " + m.group().strip());
                }
            }
        }
        assertEquals(2, settingReads, READER + " reads the environment and the properties, once each");
        assertEquals(List.of(), elsewhere, "reads outside the settings classes: declare the setting in the module's"
                + " *Settings class (and docs/settings.md), or name a JVM property in " + JVM_PROPERTIES);
        assertEquals(JVM_PROPERTIES, jvmRead, "JVM properties allowed here but read nowhere: drop them");
    }

    @Test
    void onlySettingsClassesDeclareSettings() {
        List<String> elsewhere = new ArrayList<>();
        int declarations = 0;
        for (var source : sources.entrySet()) {
            Matcher m = DECLARATION.matcher(source.getValue());
            while (m.find()) {
                declarations++;
                if (!ProductSettings.isSettingsClass(source.getKey())) {
                    elsewhere.add(where(source.getKey(), source.getValue(), m.start()));
                }
            }
        }
        assertTrue(declarations > 20, "found only " + declarations + " declarations: has the pattern changed?");
        assertEquals(List.of(), elsewhere, "settings declared outside a *Settings class, where no test finds them");
    }

    @Test
    void thePageNamesEveryJvmPropertyReadByName() throws IOException {
        String page = Files.readString(root.resolve("docs/settings.md"));
        Set<String> missing = new TreeSet<>();
        for (String name : JVM_PROPERTIES) {
            if (!page.contains("`" + name + "`")) {
                missing.add(name);
            }
        }
        assertEquals(Set.of(), missing, "JVM properties the code reads that docs/settings.md does not name");
    }

    private String where(Path file, String text, int offset) {
        return root.relativize(file) + ":" + (text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1);
    }
}
