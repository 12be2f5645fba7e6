package org.cudaipc4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.cudaipc4j.base.Setting;

/**
 * The product's main sources and its settings as the settings classes declare them, for the tests that hold
 * docs/settings.md and the code to each other. The product is every {@code cudaipc4j-*} module of the checkout but
 * cudaipc4j-testing, the tests' support (which reads the tests' own variables), so a module added is in it too.
 */
final class ProductSettings {
    /** The module that is no part of the product. */
    static final String TEST_SUPPORT = "cudaipc4j-testing";

    /** One declaration: the class and field that hold it. */
    record Declared(Class<?> owner, String field, Setting<?> setting) {
        @Override
        public String toString() {
            return owner.getSimpleName() + "." + field + " (" + setting.name() + ")";
        }
    }

    private ProductSettings() {}

    /** The product's modules, sorted. */
    static List<String> modules(Path root) throws IOException {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")))
                    .map(d -> d.getFileName().toString())
                    .filter(n -> n.startsWith("cudaipc4j-") && !n.equals(TEST_SUPPORT))
                    .sorted().toList();
        }
    }

    /** Every main Java source of the product, by path. */
    static Map<Path, String> mainSources(Path root) throws IOException {
        Map<Path, String> sources = new TreeMap<>();
        for (String module : modules(root)) {
            Path dir = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                    try {
                        sources.put(f, Files.readString(f));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
        return sources;
    }

    /** {@return whether {@code file} is a settings class by its name, the only kind that may declare a setting} */
    static boolean isSettingsClass(Path file) {
        return file.getFileName().toString().endsWith("Settings.java");
    }

    /**
     * The settings the product declares: the {@link Setting} fields of its settings classes, loaded from the test's
     * class path, in source order per class.
     */
    static List<Declared> declared(Path root) throws IOException, ReflectiveOperationException {
        List<Declared> declared = new ArrayList<>();
        for (Path file : mainSources(root).keySet()) {
            if (!isSettingsClass(file)) {
                continue;
            }
            Path inModule = root.relativize(file); // module/src/main/java/org/...
            String name = inModule.subpath(4, inModule.getNameCount()).toString().replace(".java", "")
                    .replace('/', '.');
            Class<?> owner = Class.forName(name, false, ProductSettings.class.getClassLoader());
            for (Field f : owner.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == Setting.class) {
                    f.setAccessible(true);
                    declared.add(new Declared(owner, f.getName(), (Setting<?>) f.get(null)));
                }
            }
        }
        return declared;
    }

    /**
     * The tables of a Markdown page by the heading above each (its first table), each row as its cells; a cell may
     * hold {@code \|}, which is no cell border.
     */
    static Map<String, List<List<String>>> tables(String markdown) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        String heading = null;
        List<List<String>> rows = null;
        for (String line : markdown.split("\n")) {
            if (line.startsWith("#")) {
                heading = line.replaceFirst("^#+\\s*", "").strip();
                rows = null;
            } else if (!line.startsWith("|")) {
                rows = null;
            } else if (rows != null || heading != null && !tables.containsKey(heading)) {
                if (rows == null) {
                    rows = new ArrayList<>();
                    tables.put(heading, rows);
                }
                List<String> cells = new ArrayList<>();
                for (String cell : line.substring(1, line.length() - 1).split("(?<!\\\\)\\|")) {
                    cells.add(cell.strip());
                }
                rows.add(cells);
            }
        }
        tables.values().forEach(r -> r.subList(0, Math.min(2, r.size())).clear()); // the header and its rule
        return tables;
    }
}
