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
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.base.Setting;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/settings.md's tables of what cudaipc4j reads are its settings classes' declarations: each environment variable
 * and system property declared has its row with the declared default, and each row of those tables is declared, so
 * a setting added, renamed, removed or given another default without the page fails here.
 */
class SettingsDocumentedTest {
    /** The headings of the tables, as the page writes them. */
    private static final String VARIABLES = "Read by cudaipc4j";
    private static final String SCRIPT_VARIABLES = "Read by the scripts and the tests";
    private static final String PROPERTIES = "System properties";
    private static final Pattern NAME = Pattern.compile("`([^`]+)`");

    private static List<ProductSettings.Declared> declared;
    private static String page;
    private static Map<String, List<List<String>>> tables;

    @BeforeAll
    static void read() throws IOException, ReflectiveOperationException {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        declared = ProductSettings.declared(root.get());
        page = Files.readString(root.get().resolve("docs/settings.md"));
        tables = ProductSettings.tables(page);
        assertTrue(declared.size() > 40, "found only " + declared.size() + " declarations: " + declared);
        for (String table : List.of(VARIABLES, SCRIPT_VARIABLES, PROPERTIES)) {
            assertTrue(tables.containsKey(table) && tables.get(table).size() > 5,
                    "docs/settings.md has no table under '" + table + "': " + tables.keySet());
        }
    }

    @Test
    void eachSettingIsDeclaredOnce() {
        Map<String, List<ProductSettings.Declared>> byName = new TreeMap<>();
        for (ProductSettings.Declared d : declared) {
            byName.computeIfAbsent(d.setting().name(), n -> new ArrayList<>()).add(d);
        }
        byName.values().removeIf(list -> list.size() == 1);
        assertEquals(Map.of(), byName, "settings declared more than once: read the one declaration instead");
    }

    @Test
    void everyDeclarationHasItsRowWithItsDefault() {
        Map<String, String> wrong = new TreeMap<>();
        for (ProductSettings.Declared d : declared) {
            Setting<?> s = d.setting();
            String table = s.source() == Setting.Source.ENVIRONMENT ? VARIABLES : PROPERTIES;
            List<List<String>> rows = rowsNaming(table, s.name());
            String shown = s.defaultValue() == null ? "none" : "`" + s.defaultValue() + "`";
            if (rows.size() != 1) {
                wrong.put(s.name(), rows.size() + " rows under '" + table + "' for " + d);
            } else if (!rows.getFirst().get(1).equals(shown)) {
                wrong.put(s.name(), "default " + rows.getFirst().get(1) + " on the page, " + shown + " in " + d);
            }
        }
        assertEquals(Map.of(), wrong, "docs/settings.md does not list these declarations as declared");
    }

    @Test
    void everyRowOfWhatCudaipc4jReadsIsDeclaredAndNoScriptsRowIs() {
        Set<String> names = new TreeSet<>();
        declared.forEach(d -> names.add(d.setting().name()));
        Set<String> undeclared = new TreeSet<>();
        for (String table : List.of(VARIABLES, PROPERTIES)) {
            for (List<String> row : tables.get(table)) {
                List<String> named = names(row.getFirst());
                assertEquals(1, named.size(), "one setting per row under '" + table + "': " + row.getFirst());
                if (!names.contains(named.getFirst())) {
                    undeclared.add(named.getFirst());
                }
            }
        }
        assertEquals(Set.of(), undeclared, "rows of docs/settings.md that no settings class declares");
        Set<String> misplaced = new TreeSet<>();
        for (List<String> row : tables.get(SCRIPT_VARIABLES)) {
            names(row.getFirst()).stream().filter(names::contains).forEach(misplaced::add);
        }
        assertEquals(Set.of(), misplaced, "declared settings listed under '" + SCRIPT_VARIABLES + "'");
    }

    @Test
    void everyPropertyOfCudaipc4jThePageNamesIsDeclared() {
        Matcher m = Pattern.compile("`(cudaipc4j\\.[A-Za-z0-9.]+)`").matcher(page);
        Set<String> properties = new TreeSet<>();
        declared.stream().filter(d -> d.setting().source() == Setting.Source.PROPERTY)
                .forEach(d -> properties.add(d.setting().name()));
        Set<String> gone = new TreeSet<>();
        int named = 0;
        while (m.find()) {
            named++;
            if (!properties.contains(m.group(1))) {
                gone.add(m.group(1));
            }
        }
        assertTrue(named > 5, "docs/settings.md names only " + named + " properties");
        assertEquals(Set.of(), gone, "docs/settings.md names properties no settings class declares");
    }

    private static List<List<String>> rowsNaming(String table, String name) {
        return tables.get(table).stream().filter(row -> names(row.getFirst()).contains(name)).toList();
    }

    /** The names a table's first cell gives, each in backquotes. */
    private static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(cell);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
