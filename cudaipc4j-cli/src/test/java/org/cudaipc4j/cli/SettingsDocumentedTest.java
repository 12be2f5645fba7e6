package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.stream.Stream;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every system property and environment variable the main code of any module reads is in docs/settings.md, and
 * every {@code cudaipc4j.*} property that page names is still read somewhere: a setting added, renamed or removed
 * without the page fails here.
 */
class SettingsDocumentedTest {
    /** The reads: System.getProperty / getenv, Integer.getInteger, Long.getLong, Boolean.getBoolean. */
    private static final Pattern READ = Pattern.compile(
            "\\b(System\\.getProperty|System\\.getenv|Integer\\.getInteger|Long\\.getLong|Boolean\\.getBoolean)"
                    + "\\s*\\(\\s*([^,)]*)");
    /** The JDK's own properties, which configure the JVM and are documented there. */
    private static final Pattern JDK_PROPERTY = Pattern.compile(
            "(java|os|user|file|path|line|sun|jdk)\\..+|(native|stdout|stderr)\\.encoding");
    /**
     * The module whose main code the first check leaves out: cudaipc4j-testing, the tests' support, forwards every
     * {@code cudaipc4j.*} property to child JVMs by a name from a loop; its own variable is on the page by hand, and
     * the second check searches it too. Every other module of the checkout is searched, so a new one is too.
     */
    private static final String TEST_SUPPORT = "cudaipc4j-testing";

    private static Path root;
    private static Map<Path, String> sources;
    private static Map<Path, String> testSupport;
    private static String settings;

    @BeforeAll
    static void read() throws IOException {
        Optional<Path> found = ProjectRoot.find();
        Assumptions.assumeTrue(found.isPresent(), "skipped: not run inside the project's checkout");
        root = found.get();
        sources = new TreeMap<>();
        testSupport = new TreeMap<>();
        List<String> modules = modules();
        assertTrue(modules.contains("cudaipc4j-cuda") && modules.contains("cudaipc4j-interop"),
                "modules found: " + modules);
        read(modules, sources);
        read(List.of(TEST_SUPPORT), testSupport);
        assertTrue(sources.size() > 50, "found only " + sources.size() + " main source files under " + root);
        settings = Files.readString(root.resolve("docs/settings.md"));
    }

    /** The checkout's modules ({@code cudaipc4j-*} folders with a POM) but the tests' support, sorted. */
    private static List<String> modules() throws IOException {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")))
                    .map(d -> d.getFileName().toString())
                    .filter(n -> n.startsWith("cudaipc4j-") && !n.equals(TEST_SUPPORT))
                    .sorted().toList();
        }
    }

    private static void read(List<String> modules, Map<Path, String> into) throws IOException {
        for (String module : modules) {
            Path dir = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                    try {
                        into.put(f, Files.readString(f));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
    }

    @Test
    void everySettingTheCodeReadsIsDocumented() {
        Map<String, Set<String>> undocumented = new TreeMap<>();
        List<String> unresolved = new ArrayList<>();
        int reads = 0;
        for (var source : sources.entrySet()) {
            Matcher m = READ.matcher(source.getValue());
            while (m.find()) {
                reads++;
                String where = root.relativize(source.getKey()) + ":" + line(source.getValue(), m.start());
                String name = resolve(m.group(2).strip(), source.getKey());
                if (name == null) {
                    unresolved.add(where + " " + m.group());
                } else if (!JDK_PROPERTY.matcher(name).matches() && !settings.contains("`" + name + "`")) {
                    undocumented.computeIfAbsent(name, k -> new TreeSet<>()).add(where);
                }
            }
        }
        assertTrue(reads > 20, "found only " + reads + " reads: has the pattern stopped matching?");
        assertEquals(List.of(), unresolved, "reads whose name cannot be told from the source: read a constant or"
                + " a literal, so that it can be checked against docs/settings.md");
        assertEquals(Map.of(), undocumented, "settings read by the code but missing from docs/settings.md"
                + " (as `name`)");
    }

    @Test
    void everyPropertyThePageNamesIsStillRead() {
        Matcher m = Pattern.compile("`(cudaipc4j\\.[A-Za-z0-9.]+)`").matcher(settings);
        Set<String> gone = new TreeSet<>();
        int named = 0;
        while (m.find()) {
            named++;
            String name = m.group(1);
            if (Stream.concat(sources.values().stream(), testSupport.values().stream())
                    .noneMatch(s -> s.contains("\"" + name + "\""))) {
                gone.add(name);
            }
        }
        assertTrue(named > 5, "docs/settings.md names only " + named + " properties");
        assertEquals(Set.of(), gone, "docs/settings.md names properties no code reads any more");
    }

    /** The name a read's argument stands for: a string literal, or a constant defined once as a literal. */
    private static String resolve(String argument, Path file) {
        if (argument.isEmpty()) {
            return null; // System.getenv(): the whole environment, whose names cannot be checked
        }
        Matcher literal = Pattern.compile("\"([^\"]+)\"").matcher(argument);
        if (literal.matches()) {
            return literal.group(1);
        }
        if (!argument.matches("[A-Za-z_][A-Za-z0-9_.]*")) {
            return null;
        }
        String[] parts = argument.split("\\.");
        String constant = parts[parts.length - 1];
        String owner = parts.length > 1 ? parts[parts.length - 2] + ".java" : file.getFileName().toString();
        Pattern definition = Pattern.compile("\\b" + Pattern.quote(constant) + "\\s*=\\s*\"([^\"]+)\"\\s*;");
        Set<String> values = new TreeSet<>();
        for (var source : sources.entrySet()) {
            if (source.getKey().getFileName().toString().equals(owner)) {
                Matcher d = definition.matcher(source.getValue());
                while (d.find()) {
                    values.add(d.group(1));
                }
            }
        }
        return values.size() == 1 ? values.iterator().next() : null;
    }

    private static int line(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
